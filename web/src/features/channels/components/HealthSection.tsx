/**
 * A channel's health as the contract gives it: from its latest delivery attempt (healthy: sent,
 * failing: failed, unknown: none yet), when that attempt finished, and its error. The attempts
 * themselves are listed below it (AttemptsSection).
 */
import { Group, Paper, Stack, Text, Title } from '@mantine/core';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import type { Channel } from '../hooks';

export function HealthSection({ channel }: { channel: Channel }) {
  const t = useT();
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="channel-health">
      <Title order={2} size="h4" mb="sm" id="channel-health">{t('channels.section.health')}</Title>
      <Stack gap="xs">
        <Group gap="xs">
          <Text size="sm">{t('channels.col.health')}:</Text>
          <StatusBadge status={channel.health} />
        </Group>
        <Text size="sm">{t('channels.help.' + channel.health)}</Text>
        <Text size="sm">
          {t('channels.lastAttempt')}: {channel.last_attempt_at ? <Time value={channel.last_attempt_at} /> : t('channels.never')}
        </Text>
        {channel.last_error && (
          <Text size="sm" c="red.8" role="note" aria-label={t('channels.lastError')}>
            {t('channels.lastError')}: <Text span ff="monospace">{channel.last_error.code}</Text>: {channel.last_error.message}
            {channel.last_error.at && <> (<Time value={channel.last_error.at} />)</>}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
