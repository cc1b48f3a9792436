/** The home page: GET /dashboard. */
import { useQuery } from '@tanstack/react-query';
import { Code } from '@mantine/core';
import { api } from '../../../api/client';
import { keys } from '../../../api/keys';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';

export function DashboardPage() {
  const t = useT();
  const dashboard = useQuery({ queryKey: keys.dashboard, queryFn: () => api.call('getDashboard') });
  return (
    <>
      <PageHeader title={t('dashboard.title')} />
      <QueryState query={dashboard}>{(d) => <Code block>{JSON.stringify(d, null, 2)}</Code>}</QueryState>
    </>
  );
}
