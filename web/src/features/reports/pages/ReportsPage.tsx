/** /reports: every report by title, with its schedule, next and last run, and paused state. */
import { Badge, Button, Center, Group, SegmentedControl, Table, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { ManagedBadge } from '../../config/components/ManagedBadge';
import { useCan } from '../../../api/session';
import { EmptyState } from '../../../components/EmptyState';
import { ListTable, LoadMore } from '../../../components/ListTable';
import { PageHeader } from '../../../components/PageHeader';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useReportList, type Report } from '../hooks';
import { Loading } from '../../../components/Loading';

const FILTERS = ['all', 'scheduled', 'paused'] as const;

function ReportRow({ report }: { report: Report }) {
  const t = useT();
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Text component={Link} to={`/reports/${report.id}`} fw={500} c="var(--mantine-primary-color-filled)">{report.title}</Text>
          <ManagedBadge kind="report" id={report.id} name={report.title} managed={report.managed} />
        </Group>
      </Table.Td>
      <Table.Td><Text size="sm">{report.schedule_description ?? t('reports.onDemand')}</Text></Table.Td>
      <Table.Td>{report.paused ? <Badge color="yellow" variant="light">{t('reports.paused')}</Badge> : <Time value={report.next_run_at} style="short" />}</Table.Td>
      <Table.Td>
        {report.last_run ? (
          <Group gap="xs" wrap="nowrap">
            <StatusBadge status={report.last_run.status} />
            <Text component={Link} to={`/runs/${report.last_run.id}`} size="sm"><Time value={report.last_run.finished_at ?? report.last_run.created_at} style="short" /></Text>
          </Group>
        ) : <Text size="sm" c="dimmed">{t('reports.neverRun')}</Text>}
      </Table.Td>
    </Table.Tr>
  );
}

export function ReportsPage() {
  const t = useT();
  const canEdit = useCan('editor');
  const [params, setParams] = useSearchParams();
  const filter = (FILTERS as readonly string[]).includes(params.get('state') ?? '') ? params.get('state')! : 'all';
  const list = useReportList({ paused: filter === 'all' ? undefined : filter === 'paused' });
  const reports = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader title={t('reports.title')} actions={canEdit && <Button component={Link} to="/reports/new">{t('reports.new')}</Button>} />
      <SegmentedControl mb="md" aria-label={t('reports.filter')} value={filter}
        data={FILTERS.map((f) => ({ value: f, label: t(`reports.filter.${f}`) }))}
        onChange={(v) => setParams(v === 'all' ? {} : { state: v }, { replace: true })} />
      {list.isError && <ProblemAlert error={list.error} onRetry={() => void list.refetch()} />}
      {list.isPending && <Center p="md"><Loading size="sm" /></Center>}
      {list.isSuccess && reports.length === 0 && (
        <EmptyState title={t(filter === 'all' ? 'reports.empty' : 'reports.emptyFiltered')}>
          {canEdit && filter === 'all' && <Text size="sm">{t('reports.emptyHelp')}</Text>}
        </EmptyState>
      )}
      {reports.length > 0 && (
        <ListTable label={t('reports.title')} columns={[t('reports.col.title'), t('reports.col.schedule'), t('reports.col.nextRun'), t('reports.col.lastRun')]}>
          {reports.map((r) => <ReportRow key={r.id} report={r} />)}
        </ListTable>
      )}
      <LoadMore list={list} />
    </>
  );
}
