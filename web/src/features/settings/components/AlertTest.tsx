/** Sends a test alert through the saved alert channels and the fallback, and calls the heartbeat once: what each answered. */
import { Badge, Button, Stack, Table, Text, Title } from '@mantine/core';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { formatDuration } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useTestAlertSettings } from '../hooks';

export function AlertTest({ nameOf }: { nameOf: (id: string | null | undefined) => string }) {
  const t = useT();
  const test = useTestAlertSettings();
  const targets = test.data?.targets ?? [];
  const label = (target: 'channel' | 'fallback' | 'heartbeat', channelId: string | undefined) =>
    target === 'heartbeat' ? t('settings.alerts.heartbeat')
      : target === 'fallback' ? t('settings.alerts.fallbackNamed', { name: nameOf(channelId) }) : nameOf(channelId);
  return (
    <Stack gap="xs" maw={760}>
      <Title order={3} size="h4">{t('settings.alerts.test')}</Title>
      <Text size="sm" c="dimmed">{t('settings.alerts.testHelp')}</Text>
      <div><Button variant="default" loading={test.isPending} onClick={() => test.mutate()}>{t('settings.alerts.sendTest')}</Button></div>
      {test.isError && <ProblemAlert error={test.error} />}
      {test.isSuccess && targets.length === 0 && <Text size="sm" role="status">{t('settings.alerts.testNothing')}</Text>}
      {targets.length > 0 && (
        <Table aria-label={t('settings.alerts.testResults')}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('settings.alerts.target')}</Table.Th>
              <Table.Th>{t('settings.alerts.result')}</Table.Th>
              <Table.Th>{t('settings.alerts.detail')}</Table.Th>
              <Table.Th>{t('settings.alerts.took')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {targets.map((r, i) => (
              <Table.Tr key={i}>
                <Table.Td>{label(r.target, r.channel_id)}</Table.Td>
                {/* The badge and the time keep their width; the detail takes what is left and wraps. */}
                <Table.Td style={{ whiteSpace: 'nowrap', width: '1%' }}>
                  <Badge color={r.ok ? 'green' : 'red'} variant="light" style={{ minWidth: 'max-content' }}>{r.ok ? t('settings.alerts.ok') : t('settings.alerts.failed')}</Badge>
                </Table.Td>
                <Table.Td>
                  {r.error ? `${r.error.message} (${r.error.code})` : r.status !== undefined ? t('settings.alerts.httpStatus', { status: r.status }) : '—'}
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap', width: '1%' }}>{formatDuration(r.elapsed_ms)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
