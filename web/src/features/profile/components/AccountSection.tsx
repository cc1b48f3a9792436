/**
 * Name and preferences (language, time zone, theme), sent with the `version` they were read at; a
 * 409 says someone changed the profile meanwhile and offers to reload it.
 */
import { useMemo, useState, type FormEvent } from 'react';
import { Alert, Button, Group, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { notify } from '../../auth/utils/notify';
import type { Schemas } from '@herald/sdk';
import { problemCode } from '../../../api/client';
import { useMe } from '../../../api/session';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { LANGUAGES, languageOf, translator, useT } from '../../../i18n';
import { isFieldProblem, useFieldErrors } from '../../auth/components/FieldProblems';
import { useUpdateMe } from '../hooks';
import { timeZoneOptions } from '../utils/timezones';
import { Section } from './Section';

type Me = Schemas['Me'];
type Theme = Me['preferences']['theme'];
interface Fields { name: string; locale: string; timezone: string; theme: Theme }

const fieldsOf = (me: Me): Fields => ({
  name: me.name, locale: languageOf(me.preferences.locale), timezone: me.preferences.timezone, theme: me.preferences.theme,
});

/**
 * The form shows the user as GET /me has it, with the person's edits on top; the version sent is
 * the one the first edit was made on, so a change made elsewhere since then answers 409.
 */
export function AccountSection({ me }: { me: Me }) {
  const t = useT();
  const meQuery = useMe();
  const update = useUpdateMe();
  const [edits, setEdits] = useState<{ base: number; fields: Partial<Fields> } | null>(null);
  const shown: Fields = { ...fieldsOf(me), ...edits?.fields };
  const edit = (patch: Partial<Fields>) => setEdits((e) => ({ base: e?.base ?? me.version, fields: { ...e?.fields, ...patch } }));
  const zones = useMemo(() => timeZoneOptions(shown.timezone), [shown.timezone]);
  const browserZone = useMemo(() => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return zone && timeZoneOptions().includes(zone) ? zone : null;
  }, []);
  const errors = useFieldErrors(update.error);
  const conflict = problemCode(update.error) === 'conflict.version';
  const reload = async () => {
    await meQuery.refetch();
    setEdits(null);
    update.reset();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = { version: edits?.base ?? me.version, name: shown.name, preferences: { locale: shown.locale, timezone: shown.timezone, theme: shown.theme } };
    update.mutate(body, {
      onSuccess: (saved) => {
        setEdits(null);
        const inTheirLanguage = translator(languageOf(saved.preferences.locale));
        notify(inTheirLanguage, inTheirLanguage('profile.account.saved'));
      },
    });
  };
  return (
    <Section title={t('profile.account.title')} description={t('profile.account.intro')}>
      <form onSubmit={submit} noValidate>
        <Stack maw={480}>
          {conflict && (
            <Alert color="orange" role="alert" title={t('profile.account.conflict')}>
              <Stack gap="xs" align="flex-start">
                <Text size="sm">{t('app.changedMeanwhile')}</Text>
                <Button size="xs" variant="default" onClick={() => void reload()}>{t('app.reload')}</Button>
              </Stack>
            </Alert>
          )}
          {update.isError && !conflict && !isFieldProblem(update.error) && <ProblemAlert error={update.error} />}
          <TextInput label={t('auth.name')} required autoComplete="name" value={shown.name} error={errors.name}
            onChange={(e) => edit({ name: e.currentTarget.value })} />
          <TextInput label={t('auth.email')} value={me.email} readOnly description={t('profile.account.emailHint')} />
          <Select label={t('profile.account.language')} data={LANGUAGES} value={shown.locale} allowDeselect={false}
            error={errors['preferences.locale']} onChange={(v) => v && edit({ locale: v })} />
          <Select label={t('profile.account.timezone')} data={zones} value={shown.timezone} searchable allowDeselect={false}
            limit={50} nothingFoundMessage={t('profile.account.noZone')} error={errors['preferences.timezone']}
            onChange={(v) => v && edit({ timezone: v })} />
          {/* A new account's zone is UTC: the browser's own is one click away (saved with Save). */}
          {browserZone && browserZone !== shown.timezone && (
            <Group mt={-8}>
              <Button size="compact-sm" variant="subtle" onClick={() => edit({ timezone: browserZone })}>
                {t('profile.account.useBrowserZone', { zone: browserZone })}
              </Button>
            </Group>
          )}
          <Stack gap={4}>
            <Text size="sm" fw={500} id="profile-theme">{t('profile.account.theme')}</Text>
            <SegmentedControl aria-labelledby="profile-theme" value={shown.theme} onChange={(v) => edit({ theme: v as Theme })}
              data={(['system', 'light', 'dark'] as const).map((v) => ({ value: v, label: t(`profile.account.theme.${v}`) }))} />
          </Stack>
          <Group><Button type="submit" loading={update.isPending}>{t('app.save')}</Button></Group>
        </Stack>
      </form>
    </Section>
  );
}
