/** The home page from GET /dashboard: health banner, counts, next runs, latest failures; live by events. */
import { SimpleGrid, Stack } from '@mantine/core';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { Counts } from '../components/Counts';
import { GettingStarted } from '../components/GettingStarted';
import { HealthBanner } from '../components/HealthBanner';
import { NextRuns } from '../components/NextRuns';
import { RecentFailures } from '../components/RecentFailures';
import { useDashboard } from '../hooks';

export function DashboardPage() {
  const t = useT();
  const dashboard = useDashboard();
  return (
    <>
      <PageHeader title={t('dashboard.title')} />
      <QueryState query={dashboard}>
        {(d) => (
          <Stack gap="md">
            <HealthBanner banner={d.banner} />
            {d.reports.active + d.reports.paused === 0 && <GettingStarted />}
            <Counts d={d} />
            <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
              <RecentFailures failures={d.recent_failures} />
              <NextRuns runs={d.next_runs} />
            </SimpleGrid>
          </Stack>
        )}
      </QueryState>
    </>
  );
}
