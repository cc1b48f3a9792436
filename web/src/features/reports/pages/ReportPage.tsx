/**
 * /reports/new and /reports/:reportId: the report's fields (ReportForm), its state and actions,
 * and its deliveries. Viewers see the same, read-only.
 */
import { Alert, Badge, Group, Stack, Text } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { useCan } from '../../../api/session';
import { EmptyState } from '../../../components/EmptyState';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { ManagedBadge } from '../../config/components/ManagedBadge';
import { DeliveriesSection } from '../components/DeliveriesSection';
import { ReportActions } from '../components/ReportActions';
import { ReportForm } from '../components/ReportForm';
import { useReport, type Report } from '../hooks';

function ReportState({ report }: { report: Report }) {
  const t = useT();
  return (
    <Group gap="lg" mb="md" wrap="wrap">
      {report.paused
        ? <Badge color="yellow" variant="light" size="lg">{t('reports.paused')}</Badge>
        : <Text size="sm">{report.schedule ? <>{t('reports.nextRun')}: <Time value={report.next_run_at} /></> : t('reports.onDemand')}</Text>}
      <Group gap="xs">
        <Text size="sm">{t('reports.lastRun')}:</Text>
        {report.last_run ? (
          <>
            <StatusBadge status={report.last_run.status} />
            <Text component={Link} to={`/runs/${report.last_run.id}`} size="sm" td="underline"><Time value={report.last_run.finished_at ?? report.last_run.created_at} /></Text>
          </>
        ) : <Text size="sm" c="dimmed">{t('reports.neverRun')}</Text>}
      </Group>
    </Group>
  );
}

function ExistingReport({ report, reload }: { report: Report; reload: () => Promise<unknown> }) {
  const t = useT();
  // The configuration directory's reports change there (the API refuses with gitops.managed) until an admin detaches them.
  const locked = report.managed?.by === 'gitops' && !report.managed.detached;
  const canEdit = useCan('editor') && !locked;
  const canRun = useCan('editor');
  // The version the form's edit started from: moved on by this page's own changes (save, pause,
  // resume) and, while nothing is typed, by anyone's; otherwise a save answers "changed meanwhile".
  const [base, setBase] = useState(report.version);
  const [formKey, setFormKey] = useState(0);
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    if (!dirty && report.version !== base) { setBase(report.version); setFormKey((k) => k + 1); }
  }, [report.version, dirty, base]);
  const onDirty = useCallback((d: boolean) => setDirty(d), []);
  const own = (r: Report) => setBase(r.version);
  return (
    <>
      <PageHeader title={report.title}
        badge={<ManagedBadge kind="report" id={report.id} name={report.title} managed={report.managed} actions />}
        actions={canRun && <ReportActions report={report} onChanged={own} locked={locked} />} />
      {locked && (
        <Alert color="blue" role="status" mb="md" title={t('reports.managed')}>{t('reports.managedBody', { path: report.managed?.path ?? '' })}</Alert>
      )}
      <ReportState report={report} />
      <Stack>
        <ReportForm key={formKey} report={report} version={base} readOnly={!canEdit} onSaved={own} onDirty={onDirty}
          onReload={() => void reload().then(() => { setDirty(false); setFormKey((k) => k + 1); })} />
        <DeliveriesSection reportId={report.id} readOnly={!canEdit} canTest={canRun} />
      </Stack>
    </>
  );
}

export function ReportPage() {
  const { reportId } = useParams();
  const report = useReport(reportId);
  return <QueryState query={report}>{(r) => <ExistingReport report={r} reload={report.refetch} />}</QueryState>;
}

export function NewReportPage() {
  const t = useT();
  const canEdit = useCan('editor');
  const navigate = useNavigate();
  const [params] = useSearchParams();
  return (
    <>
      <PageHeader title={t('reports.newTitle')} />
      {canEdit ? (
        <Stack>
          <Text size="sm" c="dimmed">{t('reports.newHelp')}</Text>
          <ReportForm readOnly={false} queryId={params.get('query_id')} onSaved={(r) => void navigate(`/reports/${r.id}`, { replace: true })} />
        </Stack>
      ) : <EmptyState title={t('reports.editorsOnly')} />}
    </>
  );
}
