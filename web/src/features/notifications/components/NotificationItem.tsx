/** One notification: severity, title (leading to what it is about), body, when, count, and mark read. */
import { Anchor, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { resourcePath, useMarkRead, type Notification } from '../hooks';

const COLOURS = { info: 'blue', warning: 'yellow', critical: 'red' } as const;

export function NotificationItem({ n, onOpen, compact = false }: { n: Notification; onOpen?: () => void; compact?: boolean }) {
  const t = useT();
  const mark = useMarkRead();
  const path = resourcePath(n.resource);
  const unread = n.read_at === null;
  return (
    <Group justify="space-between" align="start" wrap="nowrap" gap="sm" component="article" aria-label={n.title}
      p={compact ? 'xs' : 'sm'} style={{ borderLeft: `3px solid var(--mantine-color-${unread ? 'indigo-6' : 'gray-3'})` }}>
      <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
        <Group gap={6} wrap="wrap">
          <Badge size="xs" variant="light" color={COLOURS[n.severity]}>{t(`notifications.severity.${n.severity}`)}</Badge>
          {unread && <Badge size="xs" variant="filled" color="indigo">{t('notifications.unread')}</Badge>}
          {n.count > 1 && <Text size="xs" c="dimmed">{t('notifications.times', { count: n.count })}</Text>}
        </Group>
        {path ? <Anchor component={Link} to={path} fw={unread ? 600 : 400} size="sm" onClick={onOpen}>{n.title}</Anchor>
          : <Text size="sm" fw={unread ? 600 : 400}>{n.title}</Text>}
        {n.body && <Text size="xs" c="dimmed" lineClamp={compact ? 2 : undefined}>{n.body}</Text>}
        <Text size="xs" c="dimmed"><Time value={n.updated_at} /></Text>
      </Stack>
      {unread && (
        <Button size="compact-xs" variant="subtle" style={{ flexShrink: 0 }} loading={mark.isPending} onClick={() => mark.mutate(n.id)}
          aria-label={t('notifications.markReadLabel', { title: n.title })}>
          {t('notifications.markRead')}
        </Button>
      )}
    </Group>
  );
}
