/**
 * The header's bell: the unread count (live from notification.created), and a dropdown of the
 * latest notifications with mark read, mark all read and a way to the full list.
 */
import { useId, useState } from 'react';
import { ActionIcon, Button, Divider, Group, Indicator, Popover, ScrollArea, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useLatestNotifications, useMarkAllRead } from '../hooks';
import { NotificationItem } from './NotificationItem';

function BellIcon() {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}

export function NotificationsBell() {
  const t = useT();
  const [opened, setOpened] = useState(false);
  const latest = useLatestNotifications();
  const markAll = useMarkAllRead();
  const unread = latest.data?.unread_count ?? 0;
  const close = () => setOpened(false);
  const titleId = useId();
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" width={360} shadow="md" withinPortal trapFocus>
      <Indicator label={unread > 99 ? '99+' : unread} size={18} disabled={unread === 0} color="red.8" offset={4}>
        <Popover.Target>
          <ActionIcon variant="subtle" size="lg" onClick={() => setOpened((o) => !o)} aria-label={t('nav.unread', { count: unread })}>
            <BellIcon />
          </ActionIcon>
        </Popover.Target>
      </Indicator>
      {/* Named by its own title (Mantine would name it after the bell's label, which holds the count). */}
      <Popover.Dropdown p={0} role="dialog" aria-labelledby={titleId}>
        <Group justify="space-between" px="sm" py="xs">
          <Text fw={600} size="sm" id={titleId}>{t('notifications.title')}</Text>
          {unread > 0 && (
            <Button size="compact-xs" variant="subtle" loading={markAll.isPending} onClick={() => markAll.mutate()}>{t('notifications.markAllRead')}</Button>
          )}
        </Group>
        <Divider />
        <ScrollArea.Autosize mah={380}>
          {latest.isError ? <ProblemAlert error={latest.error} onRetry={() => void latest.refetch()} /> : (
            <Stack gap={0}>
              {(latest.data?.items ?? []).length === 0
                ? <Text size="sm" c="dimmed" p="sm">{t('notifications.none')}</Text>
                : latest.data!.items.map((n) => <NotificationItem key={n.id} n={n} compact onOpen={close} />)}
            </Stack>
          )}
        </ScrollArea.Autosize>
        <Divider />
        <Button component={Link} to="/notifications" variant="subtle" fullWidth radius={0} onClick={close}>{t('notifications.all')}</Button>
      </Popover.Dropdown>
    </Popover>
  );
}
