/** The run at a glance: status, trigger, times, duration, rows, and its error when it has one. */
import { Alert, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time, formatDuration } from '../../../components/Time';
import { useT } from '../../../i18n';

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed">{label}</Text>
      <Text size="sm" component="div">{children}</Text>
    </Stack>
  );
}

export function RunSummary({ run }: { run: Schemas['Run'] }) {
  const t = useT();
  return (
    <Stack gap="sm">
      <Group gap="sm" role="status" aria-live="polite" aria-label={t('runs.statusLabel')}>
        <Text size="sm" fw={500}>{t('runs.statusLabel')}:</Text>
        <StatusBadge status={run.status} />
        {run.cancel_requested_at && (run.status === 'running' || run.status === 'pending') && (
          <Text size="sm" c="dimmed">{t('runs.cancelRequested')}</Text>
        )}
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
        <Fact label={t('runs.col.trigger')}>{t(`runs.trigger.${run.trigger}`)}{run.deliver ? '' : ` · ${t('runs.noDelivery')}`}</Fact>
        <Fact label={t('runs.queuedAt')}><Time value={run.created_at} /></Fact>
        {run.scheduled_for && <Fact label={t('runs.scheduledFor')}><Time value={run.scheduled_for} /></Fact>}
        <Fact label={t('runs.startedAt')}><Time value={run.started_at} /></Fact>
        <Fact label={t('runs.finishedAt')}><Time value={run.finished_at} /></Fact>
        <Fact label={t('runs.col.duration')}>{formatDuration(run.duration_ms)}</Fact>
        <Fact label={t('runs.col.rows')}>{run.row_count ?? '—'}</Fact>
        <Fact label={t('runs.queryVersion')}>{run.query_version ?? '—'}</Fact>
      </SimpleGrid>
      {run.error && (
        <Alert color={run.status === 'cancelled' ? 'gray' : 'red'} title={t('runs.error')}>
          <Text size="sm"><Text span ff="monospace">{run.error.code}</Text>: {run.error.message}</Text>
        </Alert>
      )}
      {Object.keys(run.parameters).length > 0 && (
        <Fact label={t('runs.parameters')}>
          {Object.entries(run.parameters).map(([name, value]) => (
            <Text key={name} size="sm"><Text span ff="monospace">{name}</Text> = {value === null ? 'null' : String(value)}</Text>
          ))}
        </Fact>
      )}
    </Stack>
  );
}
