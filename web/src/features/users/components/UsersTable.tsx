/** The members, ordered by name, with their role, state, second factor and last sign-in. */
import { Anchor, Button, Center, Paper, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useCurrentUser } from '../../../api/session';
import { EmptyState } from '../../../components/EmptyState';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useUsers } from '../hooks';
import { AccountBadges, RoleBadge } from './UserBadges';
import { Loading } from '../../../components/Loading';

export function UsersTable() {
  const t = useT();
  const me = useCurrentUser();
  const users = useUsers();
  if (users.isPending) return <Center p="md"><Loading size="sm" /></Center>;
  if (users.isError) return <ProblemAlert error={users.error} onRetry={() => void users.refetch()} />;
  const rows = users.data.pages.flatMap((p) => p.items);
  if (rows.length === 0) return <EmptyState title={t('users.empty')} />;
  return (
    <Stack>
      <Paper withBorder>
        <Table.ScrollContainer minWidth={720}>
          <Table highlightOnHover verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('users.name')}</Table.Th>
                <Table.Th scope="col">{t('users.role')}</Table.Th>
                <Table.Th scope="col">{t('users.status')}</Table.Th>
                <Table.Th scope="col">{t('users.secondFactor')}</Table.Th>
                <Table.Th scope="col">{t('users.lastSignIn')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((u) => (
                <Table.Tr key={u.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/users/${u.id}`} fw={500}>{u.name}</Anchor>
                    {u.id === me.id && <Text span size="sm" c="dimmed"> ({t('users.you')})</Text>}
                    <Text size="sm" c="dimmed">{u.email}</Text>
                  </Table.Td>
                  <Table.Td><RoleBadge role={u.role} /></Table.Td>
                  <Table.Td><AccountBadges user={u} /></Table.Td>
                  <Table.Td>{u.two_factor_enabled ? t('users.on') : t('users.off')}</Table.Td>
                  <Table.Td>{u.last_sign_in_at ? <Time value={u.last_sign_in_at} style="short" /> : t('users.never')}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      {users.hasNextPage && (
        <Center>
          <Button variant="default" loading={users.isFetchingNextPage} onClick={() => void users.fetchNextPage()}>{t('app.loadMore')}</Button>
        </Center>
      )}
    </Stack>
  );
}
