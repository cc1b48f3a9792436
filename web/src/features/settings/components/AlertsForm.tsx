/**
 * The alert settings: alert channels (in order) and a fallback, how often an open problem is
 * alerted again, the kinds that alert and their thresholds, and the outbound heartbeat (its URLs
 * are secrets). Sends the version it started from.
 */
import type { FormEvent } from 'react';
import { Button, Checkbox, Fieldset, Group, MultiSelect, NumberInput, Select, SimpleGrid, Stack, Switch, Title } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { fieldErrors } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useReplaceAlertSettings, useSettingsForm } from '../hooks';
import { PROBLEM_KINDS } from '../utils/kinds';
import { isConfigured, secretToSend, type SecretDraft } from '../utils/secret';
import { LastChanged, SaveFeedback } from './SaveFeedback';
import { SecretField } from './SecretField';

type Alerts = Schemas['AlertSettings'];
type Method = 'GET' | 'HEAD' | 'POST';

const draftOf = (d: Alerts) => ({
  channel_ids: d.channel_ids,
  fallback_channel_id: d.fallback_channel_id,
  repeat_minutes: d.repeat_minutes,
  kinds: d.kinds as string[],
  thresholds: { ...d.thresholds },
  heartbeat: d.heartbeat !== null,
  url: undefined as SecretDraft,
  method: (d.heartbeat?.method ?? 'GET') as Method,
  interval_seconds: d.heartbeat?.interval_seconds ?? 60,
  grace_seconds: (d.heartbeat?.grace_seconds ?? '') as number | '',
  fail_url: undefined as SecretDraft,
});
type Draft = ReturnType<typeof draftOf>;

const num = (v: string | number): number | '' => (typeof v === 'number' ? v : v.trim() === '' ? '' : Number(v));

export function AlertsForm({ data, channels, reload }: { data: Alerts; channels: Schemas['Channel'][]; reload: () => Promise<Alerts | undefined> }) {
  const t = useT();
  const form = useSettingsForm(data, draftOf);
  const save = useReplaceAlertSettings();
  const errors = fieldErrors(save.error);
  const d = form.draft;
  const change = (patch: Partial<Draft>) => { save.reset(); form.set(patch); };
  const options = channels.map((c) => ({ value: c.id, label: c.name }));
  const hadHeartbeat = form.base.heartbeat !== null;
  const failStored = isConfigured(form.base.heartbeat?.fail_url);

  const heartbeatBody = () => {
    if (!d.heartbeat) return hadHeartbeat ? { heartbeat: null } : {};
    const url = secretToSend(hadHeartbeat, d.url);
    const failUrl = secretToSend(failStored, d.fail_url);
    return {
      heartbeat: {
        ...(url === undefined ? {} : { url }),
        method: d.method,
        interval_seconds: d.interval_seconds,
        grace_seconds: d.grace_seconds === '' ? null : d.grace_seconds,
        ...(failUrl === undefined ? {} : { fail_url: failUrl }),
      },
    };
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({
      channel_ids: d.channel_ids,
      fallback_channel_id: d.fallback_channel_id,
      repeat_minutes: d.repeat_minutes,
      kinds: d.kinds as Schemas['ProblemKind'][],
      thresholds: d.thresholds,
      ...heartbeatBody(),
      version: form.base.version,
    }, { onSuccess: (saved) => form.reset(saved) });
  };
  const onReload = async () => {
    const fresh = await reload();
    save.reset();
    if (fresh) form.reset(fresh);
  };
  const threshold = (name: keyof Draft['thresholds'], min: number, max: number) => (
    <NumberInput label={t(`settings.alerts.threshold.${name}`)} min={min} max={max} value={d.thresholds[name]}
      error={errors[`thresholds.${name}`]}
      onChange={(v) => change({ thresholds: { ...d.thresholds, [name]: num(v) === '' ? min : Number(v) } })} />
  );
  const channelError = Object.entries(errors).find(([f]) => f.startsWith('channel_ids'))?.[1];

  return (
    <form onSubmit={submit} noValidate>
      <Stack maw={760} gap="md">
        <Title order={3} size="h4">{t('settings.alerts.settings')}</Title>
        <MultiSelect label={t('settings.alerts.channels')} description={t('settings.alerts.channelsHelp')} data={options}
          value={d.channel_ids} error={channelError} searchable nothingFoundMessage={t('settings.alerts.noChannels')}
          onChange={(v) => change({ channel_ids: v })} />
        <Select label={t('settings.alerts.fallback')} description={t('settings.alerts.fallbackHelp')} data={options}
          value={d.fallback_channel_id} clearable error={errors.fallback_channel_id} placeholder={t('settings.alerts.noFallback')}
          onChange={(v) => change({ fallback_channel_id: v })} />
        <NumberInput label={t('settings.alerts.repeat')} description={t('settings.alerts.repeatHelp')} min={5} max={10080}
          value={d.repeat_minutes} error={errors.repeat_minutes}
          onChange={(v) => change({ repeat_minutes: num(v) === '' ? 240 : Number(v) })} />
        <Checkbox.Group label={t('settings.alerts.kinds')} description={t('settings.alerts.kindsHelp')} value={d.kinds}
          error={errors.kinds} onChange={(v) => change({ kinds: v })}>
          <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs" spacing={6}>
            {PROBLEM_KINDS.map((k) => <Checkbox key={k} value={k} label={t(`settings.kind.${k}`)} />)}
          </SimpleGrid>
        </Checkbox.Group>
        <Fieldset legend={t('settings.alerts.thresholds')}>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {threshold('scheduler_grace_seconds', 30, 86400)}
            {threshold('queue_backlog_seconds', 30, 86400)}
            {threshold('failure_streak', 1, 100)}
            {threshold('disk_free_percent', 1, 50)}
          </SimpleGrid>
        </Fieldset>
        <Fieldset legend={t('settings.alerts.heartbeat')}>
          <Stack gap="sm">
            <Switch label={t('settings.heartbeat.on')} description={t('settings.heartbeat.onHelp')} checked={d.heartbeat}
              onChange={(e) => change({ heartbeat: e.currentTarget.checked })} />
            {d.heartbeat && (
              <>
                <SecretField label={t('settings.heartbeat.url')} description={t('settings.heartbeat.urlHelp')} stored={hadHeartbeat}
                  removable={false} value={d.url} error={errors['heartbeat.url']} onChange={(v) => change({ url: v })} />
                <Group grow align="flex-start">
                  <Select label={t('settings.heartbeat.method')} data={['GET', 'HEAD', 'POST']} value={d.method} allowDeselect={false}
                    onChange={(v) => change({ method: (v ?? 'GET') as Method })} />
                  <NumberInput label={t('settings.heartbeat.interval')} min={30} max={3600} value={d.interval_seconds}
                    error={errors['heartbeat.interval_seconds']}
                    onChange={(v) => change({ interval_seconds: num(v) === '' ? 60 : Number(v) })} />
                  <NumberInput label={t('settings.heartbeat.grace')} description={t('settings.heartbeat.graceHelp')} min={0} max={3600}
                    value={d.grace_seconds} error={errors['heartbeat.grace_seconds']} onChange={(v) => change({ grace_seconds: num(v) })} />
                </Group>
                <SecretField label={t('settings.heartbeat.failUrl')} description={t('settings.heartbeat.failUrlHelp')} stored={failStored}
                  value={d.fail_url} error={errors['heartbeat.fail_url']} onChange={(v) => change({ fail_url: v })} />
              </>
            )}
          </Stack>
        </Fieldset>
        <SaveFeedback error={save.error} saved={save.isSuccess} onReload={() => void onReload()} />
        <Group justify="space-between">
          <Button type="submit" loading={save.isPending}>{t('app.save')}</Button>
          <LastChanged at={form.base.updated_at} />
        </Group>
      </Stack>
    </form>
  );
}
