/** The keys, newest first: name and prefix, owner, scope, dates, state, and Revoke. */
import { useState } from 'react';
import { Anchor, Badge, Button, Center, Code, Paper, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Link } from 'react-router';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { EmptyState } from '../../../components/EmptyState';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useUserNames } from '../../users/hooks';
import { useApiKeys, useRevokeApiKey, type ApiKey } from '../hooks';
import { keyState, type KeyState } from '../utils/keys';
import { Loading } from '../../../components/Loading';

const STATE_COLOURS: Record<KeyState, string> = { active: 'green', revoked: 'gray', expired: 'yellow' };

export function ApiKeysTable({ ownerId }: { ownerId: string | undefined }) {
  const t = useT();
  const list = useApiKeys(ownerId);
  const nameOf = useUserNames();
  const revoke = useRevokeApiKey();
  const [asking, setAsking] = useState<ApiKey | null>(null);
  if (list.isPending) return <Center p="md"><Loading size="sm" /></Center>;
  if (list.isError) return <ProblemAlert error={list.error} onRetry={() => void list.refetch()} />;
  const rows = list.data.pages.flatMap((p) => p.items);
  if (rows.length === 0) return <Paper withBorder><EmptyState title={ownerId ? t('apiKeys.emptyOwner') : t('apiKeys.empty')} /></Paper>;
  const now = new Date();
  const close = () => { setAsking(null); revoke.reset(); };
  return (
    <Stack>
      <Paper withBorder>
        <Table.ScrollContainer minWidth={860}>
          <Table highlightOnHover verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('apiKeys.name')}</Table.Th>
                <Table.Th scope="col">{t('apiKeys.owner')}</Table.Th>
                <Table.Th scope="col">{t('apiKeys.scope')}</Table.Th>
                <Table.Th scope="col">{t('apiKeys.created')}</Table.Th>
                <Table.Th scope="col">{t('apiKeys.lastUsed')}</Table.Th>
                <Table.Th scope="col">{t('apiKeys.expiry')}</Table.Th>
                <Table.Th scope="col">{t('apiKeys.status')}</Table.Th>
                <Table.Th scope="col"><VisuallyHidden>{t('apiKeys.actions')}</VisuallyHidden></Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((k) => {
                const state = keyState(k, now);
                return (
                  <Table.Tr key={k.id}>
                    <Table.Td><Text fw={500}>{k.name}</Text><Code>{k.prefix}…</Code></Table.Td>
                    <Table.Td>
                      <Anchor component={Link} to={`/users/${k.owner_id}`}>{nameOf(k.owner_id) ?? t('apiKeys.unknownOwner')}</Anchor>
                    </Table.Td>
                    <Table.Td>{t(`apiKeys.scope.${k.scope}`)}</Table.Td>
                    <Table.Td><Time value={k.created_at} style="short" /></Table.Td>
                    <Table.Td>{k.last_used_at ? <Time value={k.last_used_at} style="short" /> : t('apiKeys.never')}</Table.Td>
                    <Table.Td>{k.expires_at ? <Time value={k.expires_at} style="short" /> : t('apiKeys.expiry.never')}</Table.Td>
                    <Table.Td><Badge color={STATE_COLOURS[state]} variant="dot">{t(`apiKeys.state.${state}`)}</Badge></Table.Td>
                    <Table.Td>
                      {state === 'active' && (
                        <Button size="xs" variant="outline" color="red.9" aria-label={t('apiKeys.revokeNamed', { name: k.name })}
                          onClick={() => setAsking(k)}>{t('apiKeys.revoke')}</Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      {list.hasNextPage && (
        <Center>
          <Button variant="default" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>{t('app.loadMore')}</Button>
        </Center>
      )}
      <ConfirmDialog opened={asking !== null} title={t('apiKeys.revoke.title', { name: asking?.name ?? '' })}
        confirmLabel={t('apiKeys.revoke')} loading={revoke.isPending} error={revoke.error} onClose={close}
        onConfirm={() => asking && revoke.mutate(asking.id, {
          onSuccess: (key) => { close(); notifications.show({ color: 'teal', message: t('apiKeys.revoked', { name: key.name }) }); },
        })}>
        {t('apiKeys.revoke.body')}
      </ConfirmDialog>
    </Stack>
  );
}
