/**
 * Share a run's result through a link: format and days until it expires (the contract's bounds,
 * the API decides). The link's address is shown once, right after it is made, with a copy button.
 */
import { useState, type FormEvent } from 'react';
import { Alert, Button, Group, NumberInput, Select, Stack } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { ProblemAlert, fieldErrors } from '../../../components/ProblemAlert';
import { ShownOnce } from '../../../components/ShownOnce';
import { formatTime } from '../../../components/Time';
import { useI18n } from '../../../i18n';
import { useCreateLink } from '../hooks';

const FORMATS: readonly Schemas['ResultFormat'][] = ['csv', 'xlsx', 'json'];

export function CreateLinkForm({ runId }: { runId: string }) {
  const { t, locale, timeZone } = useI18n();
  const create = useCreateLink();
  const [format, setFormat] = useState<Schemas['ResultFormat']>('csv');
  const [days, setDays] = useState<number | string>(7);
  const errors = fieldErrors(create.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ run_id: runId, format, ...(typeof days === 'number' ? { expires_in_days: days } : {}) });
  };
  const made = create.data;
  return (
    <Stack gap="sm">
      <form onSubmit={submit} noValidate aria-label={t('links.create')}>
        <Group align="end" gap="sm" wrap="wrap">
          <Select label={t('links.format')} w={140} allowDeselect={false} error={errors.format}
            data={FORMATS.map((f) => ({ value: f, label: f.toUpperCase() }))}
            value={format} onChange={(v) => v && setFormat(v as Schemas['ResultFormat'])} />
          <NumberInput label={t('links.expiresInDays')} w={180} min={1} max={90} allowDecimal={false}
            error={errors.expires_in_days} value={days} onChange={setDays} />
          <Button type="submit" loading={create.isPending}>{t('links.create')}</Button>
        </Group>
      </form>
      {create.isError && <ProblemAlert error={create.error} />}
      {made && (
        <Alert color="green" title={t('links.made')} role="status">
          <ShownOnce label={t('links.url')} value={made.url} note={t('links.madeHint', { expires: formatTime(made.expires_at, locale, timeZone) })} />
        </Alert>
      )}
    </Stack>
  );
}
