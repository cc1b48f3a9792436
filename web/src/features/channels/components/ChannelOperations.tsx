/**
 * What an editor does with a saved channel: send a test message through it as stored (POST
 * /channels/{id}/test; email goes to the caller) with the receiver's answer or error, and resend
 * its failed deliveries.
 */
import { Button, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useT } from '../../../i18n';
import { useTestChannel, type Channel } from '../hooks';
import { RetryFailed } from './RetryFailed';
import { TestOutcome } from './TestOutcome';

function SavedTest({ channel }: { channel: Channel }) {
  const t = useT();
  const test = useTestChannel(channel.id);
  return (
    <Stack gap="xs">
      <div>
        <Button variant="light" loading={test.isPending} onClick={() => test.mutate()}
          aria-label={t('channels.test.sendNamed', { name: channel.name })}>{t('channels.test.send')}</Button>
        <Text size="xs" c="dimmed" mt={4}>{t(channel.type === 'email' ? 'channels.test.helpEmail' : 'channels.test.helpSaved')}</Text>
      </div>
      <TestOutcome result={test.data} error={test.error} />
    </Stack>
  );
}

export function ChannelOperations({ channel }: { channel: Channel }) {
  const t = useT();
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="channel-operations">
      <Title order={2} size="h4" mb="sm" id="channel-operations">{t('channels.section.operations')}</Title>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <SavedTest channel={channel} />
        <RetryFailed channelId={channel.id} channelName={channel.name} />
      </SimpleGrid>
    </Paper>
  );
}
