/** Everything an event records beyond its row: target, key, user agent, reason and the details. */
import { Code, SimpleGrid, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useT } from '../../../i18n';
import type { SecurityEvent } from '../hooks';

export function EventDetails({ event }: { event: SecurityEvent }) {
  const t = useT();
  const item = (label: string, value: ReactNode) => (
    <Stack gap={2}><Text size="xs" c="dimmed">{label}</Text><Text size="sm" style={{ wordBreak: 'break-all' }}>{value}</Text></Stack>
  );
  const hasDetails = Object.keys(event.details).length > 0;
  return (
    <Stack gap="sm" p="xs">
      <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
        {item(t('audit.eventId'), <Code>{event.id}</Code>)}
        {item(t('audit.event'), <Code>{event.type}</Code>)}
        {event.reason && item(t('audit.reason'), <Code>{event.reason}</Code>)}
        {event.target && item(t('audit.target'), <><Code>{event.target.type}</Code> <Code>{event.target.id}</Code></>)}
        {event.actor.api_key_id && item(t('audit.apiKey'), <Code>{event.actor.api_key_id}</Code>)}
        {event.ip && item(t('audit.ip'), <Code>{event.ip}</Code>)}
        {event.user_agent && item(t('audit.userAgent'), event.user_agent)}
      </SimpleGrid>
      {hasDetails && (
        <Stack gap={2}>
          <Text size="xs" c="dimmed">{t('audit.data')}</Text>
          <Code block>{JSON.stringify(event.details, null, 2)}</Code>
        </Stack>
      )}
    </Stack>
  );
}
