/**
 * System alerts and the heartbeat: what the alerting does now (status), its settings (GET/PUT
 * /settings/alerts) with a test through the saved settings, and the problems Herald recorded.
 */
import { Stack } from '@mantine/core';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { useAlertSettings, useAllChannels } from '../hooks';
import { AlertStatus } from './AlertStatus';
import { AlertsForm } from './AlertsForm';
import { AlertTest } from './AlertTest';
import { ProblemsList } from './ProblemsList';
import { SectionTitle } from './SaveFeedback';

export function AlertsSection() {
  const t = useT();
  const query = useAlertSettings();
  const channels = useAllChannels();
  const names = new Map((channels.data ?? []).map((c) => [c.id, c.name]));
  const nameOf = (id: string | null | undefined) => (id ? names.get(id) ?? t('settings.alerts.deletedChannel') : '—');
  return (
    <Stack gap="xl">
      <SectionTitle title={t('settings.alerts.title')} intro={t('settings.alerts.intro')} />
      <QueryState query={query}>
        {(data) => (
          <Stack gap="xl">
            <AlertStatus status={data.status} nameOf={nameOf} />
            <AlertsForm data={data} channels={channels.data ?? []}
              reload={async () => (await query.refetch()).data} />
            <AlertTest nameOf={nameOf} />
          </Stack>
        )}
      </QueryState>
      <ProblemsList />
    </Stack>
  );
}
