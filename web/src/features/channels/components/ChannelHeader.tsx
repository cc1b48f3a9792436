/** A channel page's one h1 (also the document title), the "managed by configuration" badge beside it, and the page's actions. */
import { Group, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';
import { ManagedBadge } from '../../config/components/ManagedBadge';
import type { Channel } from '../hooks';

export function ChannelHeader({ channel, actions }: { channel: Channel; actions?: ReactNode }) {
  useEffect(() => { document.title = `${channel.name} · Herald`; }, [channel.name]);
  return (
    <Group justify="space-between" mb="md" wrap="wrap">
      <Group gap="sm" wrap="wrap">
        <Title order={1} size="h2">{channel.name}</Title>
        <ManagedBadge kind="channel" id={channel.id} name={channel.name} managed={channel.managed} actions />
      </Group>
      {actions && <Group gap="xs">{actions}</Group>}
    </Group>
  );
}
