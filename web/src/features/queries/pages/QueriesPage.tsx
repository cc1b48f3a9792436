/** /queries: every query, most recently changed first, a page at a time; "New query" for editors. */
import { Anchor, Button, Center, Group, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { ManagedBadge } from '../../config/components/ManagedBadge';
import { useCan } from '../../../api/session';
import { EmptyState } from '../../../components/EmptyState';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useConnections, useQueryList } from '../hooks';

export function QueriesPage() {
  const t = useT();
  const canEdit = useCan('editor');
  const list = useQueryList();
  const connections = useConnections();
  const connectionName = (id: string) => connections.data?.find((c) => c.id === id)?.name ?? '—';
  const newButton = canEdit && <Button component={Link} to="/queries/new">{t('queries.new')}</Button>;
  return (
    <>
      <PageHeader title={t('queries.title')} actions={newButton} />
      <QueryState query={list}>
        {(data) => {
          const items = data.pages.flatMap((p) => p.items);
          if (items.length === 0) {
            return <EmptyState title={t('queries.empty')}><Text size="sm" c="dimmed">{t(canEdit ? 'queries.emptyEditor' : 'queries.emptyViewer')}</Text></EmptyState>;
          }
          return (
            <Stack>
              <Table.ScrollContainer minWidth={640}>
                <Table highlightOnHover aria-label={t('queries.title')}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('queries.name')}</Table.Th>
                      <Table.Th>{t('queries.connection')}</Table.Th>
                      <Table.Th>{t('queries.version')}</Table.Th>
                      <Table.Th>{t('queries.changed')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {items.map((q) => (
                      <Table.Tr key={q.id}>
                        <Table.Td>
                          <Group gap="xs" wrap="nowrap">
                            <Anchor component={Link} to={`/queries/${q.id}`} fw={500}>{q.name}</Anchor>
                            <ManagedBadge kind="query" id={q.id} name={q.name} managed={q.managed} />
                          </Group>
                          {q.description && <Text size="xs" c="dimmed" lineClamp={1}>{q.description}</Text>}
                        </Table.Td>
                        <Table.Td>{connectionName(q.connection_id)}</Table.Td>
                        <Table.Td>{t('queries.versionNumber', { number: q.current_version })}</Table.Td>
                        <Table.Td><Time value={q.updated_at} /></Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              {list.hasNextPage && (
                <Center>
                  <Button variant="light" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>{t('app.loadMore')}</Button>
                </Center>
              )}
              <Text size="xs" c="dimmed" ta="center" role="status">{t('queries.shown', { count: items.length })}</Text>
            </Stack>
          );
        }}
      </QueryState>
    </>
  );
}
