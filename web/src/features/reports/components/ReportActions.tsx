/**
 * What an editor does with a saved report: pause or resume, run now (delivering or not; the
 * queued run's page opens), test delivery (a run that sends only to the caller), delete with
 * confirmation.
 */
import { Alert, Anchor, Button, Group, Menu, Stack, Text } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { notifications } from '@mantine/notifications';
import { ProblemAlert, problemMessage } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { ConfirmButton } from './ConfirmButton';
import { useDeleteReport, usePauseReport, useRunReport, useTestDelivery, type Report } from '../hooks';

/** `locked`: the configuration directory manages the report, so only running it is offered. */
export function ReportActions({ report, onChanged, locked = false }: { report: Report; onChanged: (r: Report) => void; locked?: boolean }) {
  const t = useT();
  const navigate = useNavigate();
  const pause = usePauseReport(report.id);
  const run = useRunReport(report.id);
  const del = useDeleteReport(report.id);
  const failed = (error: unknown) => notifications.show({ color: 'red', title: t('app.error'), message: problemMessage(error, t) });
  const runNow = (deliver: boolean) => run.mutate(deliver, { onSuccess: (r) => void navigate(`/runs/${r.id}`), onError: failed });
  return (
    <>
      {!locked && (
        <Button variant="default" loading={pause.isPending} onClick={() => pause.mutate(!report.paused, { onSuccess: onChanged, onError: failed })}>
          {report.paused ? t('reports.resume') : t('reports.pause')}
        </Button>
      )}
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button loading={run.isPending}>{t('reports.runNow')}</Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => runNow(true)}>{t('reports.runDeliver')}</Menu.Item>
          <Menu.Item onClick={() => runNow(false)}>{t('reports.runNoDeliver')}</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {!locked && (
        <ConfirmButton variant="subtle" color="red" title={t('reports.deleteTitle', { title: report.title })} text={t('reports.deleteText')}
          confirmLabel={t('reports.deleteConfirm')} pending={del.isPending} error={del.error}
          onConfirm={() => del.mutate(undefined, { onSuccess: () => void navigate('/reports', { replace: true }) })}>
          {t('app.delete')}
        </ConfirmButton>
      )}
    </>
  );
}

/** Test delivery: a run that renders every delivery and sends it only to the caller. */
export function TestDelivery({ reportId }: { reportId: string }) {
  const t = useT();
  const test = useTestDelivery(reportId);
  return (
    <Stack gap="xs">
      <Group>
        <Button variant="light" loading={test.isPending} onClick={() => test.mutate()}>{t('reports.testDelivery')}</Button>
        <Text size="sm" c="dimmed">{t('reports.testDeliveryHelp')}</Text>
      </Group>
      {test.isError && <ProblemAlert error={test.error} />}
      {test.isSuccess && (
        <Alert color="green" role="status" title={t('reports.testQueued')}>
          <Anchor component={Link} to={`/runs/${test.data.id}`}>{t('reports.openRun')}</Anchor>
        </Alert>
      )}
    </Stack>
  );
}
