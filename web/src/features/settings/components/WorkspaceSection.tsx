/** Workspace policies (GET/PATCH /settings): second factor required, who may sign in with a password. */
import type { FormEvent } from 'react';
import { Button, Group, Radio, Stack, Switch } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { fieldErrors } from '../../../components/ProblemAlert';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { useSettingsForm, useUpdateSettings, useWorkspaceSettings } from '../hooks';
import { LastChanged, SaveFeedback, SectionTitle } from './SaveFeedback';

type Settings = Schemas['WorkspaceSettings'];

export function WorkspaceSection() {
  const query = useWorkspaceSettings();
  return <QueryState query={query}>{(data) => <WorkspaceForm data={data} reload={async () => (await query.refetch()).data} />}</QueryState>;
}

function WorkspaceForm({ data, reload }: { data: Settings; reload: () => Promise<Settings | undefined> }) {
  const t = useT();
  const form = useSettingsForm(data, (d) => ({ require_second_factor: d.require_second_factor, password_sign_in: d.password_sign_in }));
  const save = useUpdateSettings();
  const errors = fieldErrors(save.error);
  const change = (patch: Partial<typeof form.draft>) => { save.reset(); form.set(patch); };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ ...form.draft, version: form.base.version }, { onSuccess: (saved) => form.reset(saved) });
  };
  const onReload = async () => {
    const fresh = await reload();
    save.reset();
    if (fresh) form.reset(fresh);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack maw={680} gap="lg">
        <SectionTitle title={t('settings.workspace.title')} intro={t('settings.workspace.intro')} />
        <Switch label={t('settings.workspace.requireSecondFactor')} description={t('settings.workspace.requireSecondFactorHelp')}
          checked={form.draft.require_second_factor} error={errors.require_second_factor}
          onChange={(e) => change({ require_second_factor: e.currentTarget.checked })} />
        <Radio.Group label={t('settings.workspace.passwordSignIn')} description={t('settings.workspace.passwordSignInHelp')}
          value={form.draft.password_sign_in} error={errors.password_sign_in}
          onChange={(v) => change({ password_sign_in: v as Settings['password_sign_in'] })}>
          <Stack gap="xs" mt="xs">
            <Radio value="everyone" label={t('settings.workspace.passwordEveryone')} />
            <Radio value="admins_only" label={t('settings.workspace.passwordAdminsOnly')} />
          </Stack>
        </Radio.Group>
        <SaveFeedback error={save.error} saved={save.isSuccess} onReload={() => void onReload()} />
        <Group justify="space-between">
          <Button type="submit" loading={save.isPending}>{t('app.save')}</Button>
          <LastChanged at={form.base.updated_at} />
        </Group>
      </Stack>
    </form>
  );
}
