/** Every request made for one delivery attempt, oldest first: retries and resends included. */
import { Table, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { Time, formatDuration } from '../../../components/Time';
import { useT } from '../../../i18n';
import { formatBytes } from '../utils/describe';

export function AttemptHistory({ attempt }: { attempt: Schemas['DeliveryAttempt'] }) {
  const t = useT();
  if (attempt.history.length === 0) return <Text size="sm" c="dimmed">{t('runs.attempt.noRequests')}</Text>;
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table withTableBorder aria-label={t('runs.attempt.historyOf', { channel: attempt.channel_name })}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('runs.attempt.at')}</Table.Th>
            <Table.Th scope="col">{t('runs.col.duration')}</Table.Th>
            <Table.Th scope="col">{t('runs.attempt.code')}</Table.Th>
            <Table.Th scope="col">{t('runs.attempt.outcome')}</Table.Th>
            <Table.Th scope="col">{t('runs.attempt.bytes')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {attempt.history.map((send, i) => (
            <Table.Tr key={i}>
              <Table.Td><Time value={send.at} /></Table.Td>
              <Table.Td>{formatDuration(send.duration_ms)}</Table.Td>
              <Table.Td>{send.status_code ?? '—'}</Table.Td>
              <Table.Td>
                {send.error
                  ? <Text size="sm" c="red.8"><Text span ff="monospace">{send.error.code}</Text>: {send.error.message}</Text>
                  : <Text size="sm">{t('runs.attempt.accepted')}</Text>}
                {send.response_excerpt && <Text size="xs" c="dimmed" ff="monospace">{send.response_excerpt}</Text>}
              </Table.Td>
              <Table.Td>{send.bytes_sent === null ? '—' : formatBytes(send.bytes_sent)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
