/** How alerting stands: the heartbeat, the last alert, each alert channel's last send and error, the open problems. */
import { Anchor, Badge, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';

const HEARTBEAT_COLOURS = { off: 'gray', calling: 'green', stopped: 'red' } as const;

export function AlertStatus({ status, nameOf }: { status: Schemas['AlertStatus']; nameOf: (id: string | null) => string }) {
  const t = useT();
  const hb = status.heartbeat;
  const last = status.last_alert;
  return (
    <Stack gap="sm" maw={960}>
      <Title order={3} size="h4">{t('settings.alerts.status')}</Title>
      <SimpleGrid cols={{ base: 1, md: 3 }}>
        <Card withBorder padding="sm">
          <Text size="sm" fw={600}>{t('settings.alerts.openProblems')}</Text>
          <Text size="xl" fw={700}>{status.open_problems.length}</Text>
          {status.open_problems.slice(0, 3).map((p) => (
            <Anchor key={p.id} component={Link} to={`/settings/problems/${p.id}`} size="sm" display="block">{p.message}</Anchor>
          ))}
        </Card>
        <Card withBorder padding="sm">
          <Text size="sm" fw={600}>{t('settings.alerts.lastAlert')}</Text>
          {last ? (
            <Text size="sm">
              <Anchor component={Link} to={`/settings/problems/${last.problem_id}`}>{t(`settings.kind.${last.kind}`)}</Anchor>
              {' · '}{t(`settings.alerts.event.${last.event}`)}{' · '}<Time value={last.at} />
            </Text>
          ) : <Text size="sm">{t('settings.alerts.noAlertYet')}</Text>}
        </Card>
        <Card withBorder padding="sm">
          <Group justify="space-between">
            <Text size="sm" fw={600}>{t('settings.alerts.heartbeat')}</Text>
            <Badge color={HEARTBEAT_COLOURS[hb.state]} variant="light">{t(`settings.heartbeat.state.${hb.state}`)}</Badge>
          </Group>
          <Text size="sm">{t('settings.heartbeat.lastSuccess')}: <Time value={hb.last_success_at} /></Text>
          {hb.state === 'calling' && <Text size="sm">{t('settings.heartbeat.nextCall')}: <Time value={hb.next_call_at} /></Text>}
          {hb.last_error && <Text size="sm" c="red.9">{t('settings.heartbeat.lastError')}: {hb.last_error} (<Time value={hb.last_error_at} />)</Text>}
        </Card>
      </SimpleGrid>
      {status.channels.length > 0 && (
        <Table.ScrollContainer minWidth={520}>
          <Table captionSide="top">
            <Table.Caption>{t('settings.alerts.channelStatus')}</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('settings.alerts.channel')}</Table.Th>
                <Table.Th>{t('settings.alerts.lastSent')}</Table.Th>
                <Table.Th>{t('settings.alerts.lastError')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {status.channels.map((c) => (
                <Table.Tr key={c.channel_id}>
                  <Table.Td>{nameOf(c.channel_id)}</Table.Td>
                  <Table.Td><Time value={c.last_sent_at} /></Table.Td>
                  <Table.Td>{c.last_error ? <>{c.last_error} (<Time value={c.last_error_at} />)</> : '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
