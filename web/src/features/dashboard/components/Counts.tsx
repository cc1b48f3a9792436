/** The counts: reports, the last 24 hours' runs by status, failing reports, channels by health, the queue. */
import type { ReactNode } from 'react';
import { Anchor, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { formatDuration } from '../../../components/Time';
import { useT } from '../../../i18n';

function Tile({ label, value, to, children }: { label: string; value: number; to?: string; children?: ReactNode }) {
  const labelId = `tile-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <Paper withBorder p="md" radius="md" role="group" aria-labelledby={labelId}>
      <Text size="sm" c="dimmed" id={labelId}>{label}</Text>
      <Text fz={28} fw={700} lh={1.2}>{to ? <Anchor component={Link} to={to} inherit>{value}</Anchor> : value}</Text>
      {children}
    </Paper>
  );
}

const RUN_STATUSES = ['success', 'partial', 'skipped', 'failed', 'cancelled'] as const;

export function Counts({ d }: { d: Schemas['Dashboard'] }) {
  const t = useT();
  const runs = RUN_STATUSES.reduce((n, s) => n + d.runs_last_24h[s], 0);
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 6 }} spacing="sm">
      <Tile label={t('dashboard.activeReports')} value={d.reports.active} to="/reports">
        <Text size="sm">{t('dashboard.paused', { count: d.reports.paused })}</Text>
      </Tile>
      <Tile label={t('dashboard.runs24h')} value={runs} to="/runs">
        <Stack gap={0}>
          {RUN_STATUSES.filter((s) => d.runs_last_24h[s] > 0).map((s) => (
            <Anchor key={s} component={Link} to={`/runs?status=${s}`} size="sm">{t(`status.${s}`)}: {d.runs_last_24h[s]}</Anchor>
          ))}
        </Stack>
      </Tile>
      <Tile label={t('dashboard.failedRuns24h')} value={d.runs_last_24h.failed} to="/runs?status=failed" />
      <Tile label={t('dashboard.failingReports')} value={d.failing_reports} />
      <Tile label={t('dashboard.channels')} value={d.channels.healthy + d.channels.failing + d.channels.unknown}>
        <Group gap="xs">
          <Text size="sm">{t('dashboard.channelsHealthy', { count: d.channels.healthy })}</Text>
          <Text size="sm" c={d.channels.failing ? 'red.8' : undefined}>{t('dashboard.channelsFailing', { count: d.channels.failing })}</Text>
          <Text size="sm">{t('dashboard.channelsUnknown', { count: d.channels.unknown })}</Text>
        </Group>
      </Tile>
      <Tile label={t('dashboard.queue')} value={d.queue.pending}>
        <Text size="sm">{d.queue.oldest_pending_seconds === null ? t('dashboard.queueEmpty')
          : t('dashboard.queueOldest', { wait: formatDuration(d.queue.oldest_pending_seconds * 1000) })}</Text>
      </Tile>
    </SimpleGrid>
  );
}
