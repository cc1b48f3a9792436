/** /notifications: every notification, filtered by read state (in the query string), with mark read. */
import { useCallback } from 'react';
import { Button, Divider, Group, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { EmptyState } from '../../../components/EmptyState';
import { InfiniteSentinel } from '../../../components/InfiniteSentinel';
import { PageHeader } from '../../../components/PageHeader';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { QueryState } from '../../../components/QueryState';
import { useT } from '../../../i18n';
import { NotificationItem } from '../components/NotificationItem';
import { useMarkAllRead, useNotifications } from '../hooks';

export function NotificationsPage() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const filter = params.get('unread') === 'true' ? 'unread' : params.get('unread') === 'false' ? 'read' : 'all';
  const list = useNotifications(filter === 'all' ? undefined : filter === 'unread');
  const markAll = useMarkAllRead();
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const more = useCallback(() => { if (hasNextPage && !isFetchingNextPage) void fetchNextPage(); }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const unread = list.data?.pages[0]?.unread_count ?? 0;
  return (
    <>
      <PageHeader title={t('notifications.title')} actions={unread > 0 && (
        <Button variant="light" loading={markAll.isPending} onClick={() => markAll.mutate()}>{t('notifications.markAllRead')}</Button>
      )} />
      <Group mb="md" gap="md" align="end">
        <Stack gap={4}>
          <Text size="sm" id="notifications-filter">{t('notifications.filter')}</Text>
          <SegmentedControl aria-labelledby="notifications-filter" value={filter}
            data={[{ value: 'all', label: t('notifications.filter.all') }, { value: 'unread', label: t('notifications.filter.unread') }, { value: 'read', label: t('notifications.filter.read') }]}
            onChange={(v) => setParams(v === 'all' ? {} : { unread: String(v === 'unread') }, { replace: true })} />
        </Stack>
        <Text size="sm" c="dimmed" role="status">{t('notifications.unreadCount', { count: unread })}</Text>
      </Group>
      {markAll.isError && <ProblemAlert error={markAll.error} />}
      <QueryState query={list}>
        {(data) => {
          const items = data.pages.flatMap((p) => p.items);
          if (items.length === 0) return <EmptyState title={t(filter === 'unread' ? 'notifications.noneUnread' : 'notifications.none')} />;
          return (
            <Paper withBorder radius="md">
              <Stack gap={0} role="list" aria-label={t('notifications.title')}>
                {items.map((n, i) => (
                  <div role="listitem" key={n.id}>
                    {i > 0 && <Divider />}
                    <NotificationItem n={n} />
                  </div>
                ))}
              </Stack>
              {list.isFetchNextPageError && <ProblemAlert error={list.error} onRetry={more} />}
              <InfiniteSentinel hasNext={hasNextPage} loading={isFetchingNextPage} onMore={more} />
            </Paper>
          );
        }}
      </QueryState>
    </>
  );
}
