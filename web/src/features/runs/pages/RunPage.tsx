/**
 * /runs/:runId: one run, live. GET /events invalidates the run on each run.updated (api/events.ts),
 * so its status, steps, sample and delivery attempts follow it without reloading (and, while it is
 * unfinished, it is read again every few seconds in case an event was missed). Its shared links
 * (whose downloads send no event) are read again with it.
 */
import { useCallback } from 'react';
import { Anchor, Group, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { keys } from '../../../api/keys';
import { useEventListener } from '../../../api/events';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { RunLinks } from '../../links/components/RunLinks';
import { CancelRunButton } from '../components/CancelRunButton';
import { DeliveryAttempts } from '../components/DeliveryAttempts';
import { RunCondition } from '../components/RunCondition';
import { RunDownloads } from '../components/RunDownloads';
import { RunSample } from '../components/RunSample';
import { RunSteps } from '../components/RunSteps';
import { RunSummary } from '../components/RunSummary';
import { Section } from '../components/Section';
import { useReport, useRun } from '../hooks';

export function RunPage() {
  const { runId = '' } = useParams();
  const t = useT();
  const run = useRun(runId);
  const report = useReport(run.data?.report_id);
  const client = useQueryClient();
  // A link's downloads are not events: a run's change is a good moment to refresh its links too.
  const onEvent = useCallback((kind: string, data: unknown) => {
    if (kind === 'run.updated' && (data as { id?: string }).id === runId) void client.invalidateQueries({ queryKey: keys.links.lists() });
  }, [client, runId]);
  useEventListener(onEvent);
  const title = report.data ? t('runs.runOf', { report: report.data.title }) : t('runs.run');
  return (
    <>
      <PageHeader title={title} actions={run.data && <CancelRunButton run={run.data} />} />
      <QueryState query={run}>
        {(data) => (
          <Stack gap="md">
            <Group gap="md">
              <Anchor component={Link} to={`/reports/${data.report_id}`} size="sm">{t('runs.openReport')}</Anchor>
              <Anchor component={Link} to={`/runs?report_id=${data.report_id}`} size="sm">{t('runs.otherRuns')}</Anchor>
              <Text size="xs" c="dimmed" ff="monospace">{data.id}</Text>
            </Group>
            <RunSummary run={data} />
            <RunSteps run={data} />
            <RunCondition run={data} />
            <RunSample run={data} />
            <RunDownloads run={data} />
            <DeliveryAttempts run={data} />
            <Section title={t('links.title')}>
              <RunLinks runId={data.id} hasResult={data.has_result} />
            </Section>
          </Stack>
        )}
      </QueryState>
    </>
  );
}
