/** /channels: every channel by name, with its type, health and latest attempt; "Add channel" for admins. */
import { Button, Center, Group, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useCan } from '../../../api/session';
import { EmptyState } from '../../../components/EmptyState';
import { ListTable, LoadMore } from '../../../components/ListTable';
import { PageHeader } from '../../../components/PageHeader';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { ManagedBadge } from '../../config/components/ManagedBadge';
import { useChannelList, useChannelTypeName, type Channel } from '../hooks';
import { Loading } from '../../../components/Loading';

function ChannelRow({ channel, typeName }: { channel: Channel; typeName: (type: string) => string }) {
  const t = useT();
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Text component={Link} to={`/channels/${channel.id}`} fw={500} c="var(--mantine-primary-color-filled)">{channel.name}</Text>
          <ManagedBadge kind="channel" id={channel.id} name={channel.name} managed={channel.managed} />
        </Group>
      </Table.Td>
      <Table.Td><Text size="sm">{typeName(channel.type)}</Text></Table.Td>
      <Table.Td><StatusBadge status={channel.health} /></Table.Td>
      <Table.Td>
        {channel.last_attempt_at ? <Text size="sm"><Time value={channel.last_attempt_at} style="short" /></Text> : <Text size="sm" c="dimmed">{t('channels.never')}</Text>}
        {channel.last_error && <Text size="xs" c="red.8" ff="monospace">{channel.last_error.code}</Text>}
      </Table.Td>
    </Table.Tr>
  );
}

export function ChannelsPage() {
  const t = useT();
  const canAdd = useCan('admin');
  const list = useChannelList();
  const typeName = useChannelTypeName();
  const channels = list.data?.pages.flatMap((p) => p.items) ?? [];
  const add = <Button component={Link} to="/channels/new">{t('channels.add')}</Button>;
  return (
    <>
      <PageHeader title={t('channels.title')} actions={canAdd && channels.length > 0 && add} />
      {list.isError && <ProblemAlert error={list.error} onRetry={() => void list.refetch()} />}
      {list.isPending && <Center p="md"><Loading size="sm" /></Center>}
      {list.isSuccess && channels.length === 0 && (
        <EmptyState title={t('channels.empty')}>
          <Text size="sm">{t(canAdd ? 'channels.emptyHelp' : 'channels.emptyAskAdmin')}</Text>
          {canAdd && add}
        </EmptyState>
      )}
      {channels.length > 0 && (
        <ListTable label={t('channels.title')} columns={[t('channels.col.name'), t('channels.col.type'), t('channels.col.health'), t('channels.col.lastAttempt')]}>
          {channels.map((c) => <ChannelRow key={c.id} channel={c} typeName={typeName} />)}
        </ListTable>
      )}
      <LoadMore list={list} />
    </>
  );
}
