/** /connections: every connection by name, with its type, database, when its schema was read, and whether configuration manages it. */
import { Anchor, Button, Center, Group, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useCan } from '../../../api/session';
import { EmptyState } from '../../../components/EmptyState';
import { ListTable, LoadMore } from '../../../components/ListTable';
import { PageHeader } from '../../../components/PageHeader';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { ManagedBadge } from '../../config/components/ManagedBadge';
import { useConnectionList, useConnectorName, type Connection } from '../hooks';
import { Loading } from '../../../components/Loading';

function ConnectionRow({ connection }: { connection: Connection }) {
  const t = useT();
  const typeName = useConnectorName();
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Anchor component={Link} to={`/connections/${connection.id}`} fw={500}>{connection.name}</Anchor>
          <ManagedBadge kind="connection" id={connection.id} name={connection.name} managed={connection.managed} />
        </Group>
      </Table.Td>
      <Table.Td><Text size="sm">{typeName(connection.type)}</Text></Table.Td>
      <Table.Td><Text size="sm" ff="monospace">{connection.database}</Text> <Text size="xs" c="dimmed">{connection.host}:{connection.port}</Text></Table.Td>
      <Table.Td>
        {connection.schema_refreshed_at ? <Text size="sm"><Time value={connection.schema_refreshed_at} style="short" /></Text>
          : <Text size="sm" c="dimmed">{t('connections.never')}</Text>}
      </Table.Td>
    </Table.Tr>
  );
}

export function ConnectionsPage() {
  const t = useT();
  const admin = useCan('admin');
  const list = useConnectionList();
  const connections = list.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <>
      <PageHeader title={t('connections.title')} actions={admin && <Button component={Link} to="/connections/new">{t('connections.add')}</Button>} />
      {list.isError && <ProblemAlert error={list.error} onRetry={() => void list.refetch()} />}
      {list.isPending && <Center p="md"><Loading size="sm" /></Center>}
      {list.isSuccess && connections.length === 0 && (
        <EmptyState title={t('connections.empty')}>
          {admin ? (
            <>
              <Text size="sm">{t('connections.emptyHelp')}</Text>
              <Button component={Link} to="/connections/new" variant="light">{t('connections.add')}</Button>
            </>
          ) : <Text size="sm">{t('connections.emptyViewer')}</Text>}
        </EmptyState>
      )}
      {connections.length > 0 && (
        <ListTable label={t('connections.title')} columns={[t('connections.col.name'), t('connections.col.type'), t('connections.col.database'), t('connections.col.schema')]}>
          {connections.map((c) => <ConnectionRow key={c.id} connection={c} />)}
        </ListTable>
      )}
      <LoadMore list={list} />
    </>
  );
}
