/**
 * A channel's latest delivery attempts (GET /channels/{id}/attempts), newest first: when, the
 * report and its run, status, requests made, the peer's last answer, the error and the planned
 * automatic retry. Live: runs sending through the channel refresh it (api/events.ts).
 */
import { Button, Paper, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { QueryState } from '../../../components/QueryState';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useChannelAttempts, type Channel } from '../hooks';

export function AttemptsSection({ channel }: { channel: Channel }) {
  const t = useT();
  const attempts = useChannelAttempts(channel.id);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="channel-attempts">
      <Title order={2} size="h4" mb="sm" id="channel-attempts">{t('channels.section.attempts')}</Title>
      <QueryState query={attempts}>
        {(data) => {
          const items = data.pages.flatMap((p) => p.items);
          if (items.length === 0) return <Text size="sm" c="dimmed">{t('channels.attempts.none')}</Text>;
          return (
            <>
              <Table.ScrollContainer minWidth={640}>
                <Table withTableBorder aria-label={t('channels.attempts.of', { name: channel.name })}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">{t('channels.attempts.col.at')}</Table.Th>
                      <Table.Th scope="col">{t('channels.attempts.col.report')}</Table.Th>
                      <Table.Th scope="col">{t('channels.attempts.col.status')}</Table.Th>
                      <Table.Th scope="col">{t('channels.attempts.col.sends')}</Table.Th>
                      <Table.Th scope="col">{t('channels.attempts.col.answer')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {items.map((a) => (
                      <Table.Tr key={a.id}>
                        <Table.Td>
                          <Text component={Link} to={`/runs/${a.run_id}`} size="sm" td="underline"
                            aria-label={t('channels.attempts.runOf', { title: a.report_title })}>
                            <Time value={a.finished_at ?? a.created_at} />
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <Text component={Link} to={`/reports/${a.report_id}`} size="sm">{a.report_title}</Text>
                          {a.trigger === 'test' && <Text size="xs" c="dimmed">{t('channels.attempts.test')}</Text>}
                        </Table.Td>
                        <Table.Td><StatusBadge status={a.status} /></Table.Td>
                        <Table.Td>{a.sends}</Table.Td>
                        <Table.Td>
                          {a.error ? (
                            <Text size="sm" c="red.8"><Text span ff="monospace">{a.error.code}</Text>: {a.error.message}</Text>
                          ) : a.status_code !== null ? <Text size="sm" ff="monospace">{a.status_code}</Text> : <Text size="sm" c="dimmed">—</Text>}
                          {a.next_retry_at && <Text size="xs" c="dimmed">{t('channels.attempts.retryAt')} <Time value={a.next_retry_at} /></Text>}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              {attempts.hasNextPage && (
                <Button variant="subtle" size="xs" mt="xs" loading={attempts.isFetchingNextPage} onClick={() => void attempts.fetchNextPage()}>
                  {t('channels.attempts.more')}
                </Button>
              )}
            </>
          );
        }}
      </QueryState>
    </Paper>
  );
}
