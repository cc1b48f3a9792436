/** One system problem (GET /system/problems/{id}): what, since when, and every alert sent or tried about it. */
import { Anchor, Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { EmptyState } from '../../../components/EmptyState';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useCan } from '../../../api/session';
import { useT } from '../../../i18n';
import { useAllChannels, useSystemProblem } from '../hooks';
import { SeverityBadge } from '../components/ProblemsList';

export function ProblemPage() {
  const t = useT();
  const admin = useCan('admin');
  const { problemId = '' } = useParams();
  if (!admin) return <><PageHeader title={t('settings.problems.one')} /><EmptyState title={t('settings.adminsOnly')} /></>;
  return <ProblemDetail id={problemId} />;
}

function ProblemDetail({ id }: { id: string }) {
  const t = useT();
  const query = useSystemProblem(id);
  const channels = useAllChannels();
  const nameOf = (channelId: string | null) =>
    channelId ? channels.data?.find((c) => c.id === channelId)?.name ?? channelId : t('settings.alerts.deletedChannel');
  return (
    <>
      <PageHeader title={query.data ? t(`settings.kind.${query.data.problem.kind}`) : t('settings.problems.one')}
        actions={<Anchor component={Link} to="/settings/alerts">{t('settings.problems.back')}</Anchor>} />
      <QueryState query={query}>
        {({ problem, alerts }) => (
          <Stack gap="lg" maw={900}>
            <Stack gap={4}>
              <Group gap="xs">
                <SeverityBadge severity={problem.severity} />
                <Badge variant="outline" color={problem.resolved_at ? 'green' : 'red'}>
                  {problem.resolved_at ? t('settings.problems.isResolved') : t('settings.problems.isOpen')}
                </Badge>
              </Group>
              <Text>{problem.message}</Text>
              <Text size="sm">{t('settings.problems.opened')}: <Time value={problem.opened_at} /></Text>
              {problem.resolved_at && <Text size="sm">{t('settings.problems.resolved')}: <Time value={problem.resolved_at} /></Text>}
              <Text size="sm">{t('settings.problems.fingerprint')}: <code>{problem.fingerprint}</code></Text>
            </Stack>
            <Title order={2} size="h4">{t('settings.problems.alertsSent')}</Title>
            {alerts.length === 0 ? <EmptyState title={t('settings.problems.noAlerts')} /> : (
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('settings.problems.when')}</Table.Th>
                    <Table.Th>{t('settings.problems.event')}</Table.Th>
                    <Table.Th>{t('settings.alerts.channel')}</Table.Th>
                    <Table.Th>{t('settings.alerts.result')}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {alerts.map((a, i) => (
                    <Table.Tr key={i}>
                      <Table.Td><Time value={a.at} /></Table.Td>
                      <Table.Td>{t(`settings.alerts.event.${a.event}`)}</Table.Td>
                      <Table.Td>{a.fallback ? t('settings.alerts.fallbackNamed', { name: nameOf(a.channel_id) }) : nameOf(a.channel_id)}</Table.Td>
                      <Table.Td>
                        <Badge color={a.status === 'sent' ? 'green' : 'red'} variant="light">{t(`settings.problems.send.${a.status}`)}</Badge>
                        {a.error && <Text size="sm">{a.error}</Text>}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Stack>
        )}
      </QueryState>
    </>
  );
}
