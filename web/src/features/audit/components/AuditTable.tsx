/** The events, newest first, each row opening to its details; "Load more" follows the cursor. */
import { Fragment, useState } from 'react';
import { Anchor, Badge, Button, Center, Loader, Paper, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { EmptyState } from '../../../components/EmptyState';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Time, formatTime } from '../../../components/Time';
import { useI18n } from '../../../i18n';
import { useUserNames } from '../../users/hooks';
import { useSecurityEvents, type SecurityEvent } from '../hooks';
import type { AuditFilters } from '../utils/filters';
import { EventDetails } from './EventDetails';

const COLUMNS = 7;

export function AuditTable({ filters }: { filters: AuditFilters }) {
  const { t, locale, timeZone } = useI18n();
  const events = useSecurityEvents(filters);
  const nameOf = useUserNames();
  const [open, setOpen] = useState<Set<string>>(new Set());
  if (events.isPending) return <Center p="md"><Loader size="sm" aria-label={t('app.loading')} /></Center>;
  if (events.isError) return <ProblemAlert error={events.error} onRetry={() => void events.refetch()} />;
  const rows = events.data.pages.flatMap((p) => p.items);
  if (rows.length === 0) return <Paper withBorder><EmptyState title={t('audit.empty')} /></Paper>;

  const typeLabel = (type: string) => { const text = t(`audit.type.${type}`); return text === `audit.type.${type}` ? type : text; };
  const member = (id: string | null) => (id
    ? <Anchor component={Link} to={`/users/${id}`} size="sm">{nameOf(id) ?? t('audit.unknownUser')}</Anchor>
    : <Text size="sm" c="dimmed">—</Text>);
  const actor = (e: SecurityEvent) => {
    if (e.actor.type === 'user' || e.actor.type === 'api_key') {
      const name = nameOf(e.actor.user_id) ?? t('audit.unknownUser');
      return e.actor.user_id
        ? <Anchor component={Link} to={`/users/${e.actor.user_id}`} size="sm">{t(`audit.actor.${e.actor.type}`, { name })}</Anchor>
        : <Text size="sm">{t(`audit.actor.${e.actor.type}`, { name })}</Text>;
    }
    return <Text size="sm">{t(`audit.actor.${e.actor.type}`)}</Text>;
  };
  const reason = (code: string) => { const text = t(`problem.${code}`); return text === `problem.${code}` ? code : text; };
  const toggle = (id: string) => setOpen((s) => { const n = new Set(s); if (n.has(id)) n.delete(id); else n.add(id); return n; });

  return (
    <Stack>
      <Paper withBorder>
        <Table.ScrollContainer minWidth={900}>
          <Table verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t('audit.time')}</Table.Th>
                <Table.Th scope="col">{t('audit.event')}</Table.Th>
                <Table.Th scope="col">{t('audit.outcome')}</Table.Th>
                <Table.Th scope="col">{t('audit.actor')}</Table.Th>
                <Table.Th scope="col">{t('audit.subject')}</Table.Th>
                <Table.Th scope="col">{t('audit.ip')}</Table.Th>
                <Table.Th scope="col">{t('audit.details')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((e) => {
                const expanded = open.has(e.id);
                const detailsId = `event-${e.id}`;
                return (
                  <Fragment key={e.id}>
                    <Table.Tr>
                      <Table.Td><Text size="sm"><Time value={e.occurred_at} /></Text></Table.Td>
                      <Table.Td><Text size="sm" fw={500}>{typeLabel(e.type)}</Text></Table.Td>
                      <Table.Td>
                        <Badge color={e.outcome === 'success' ? 'green' : 'red'} variant="dot">{t(`audit.outcome.${e.outcome}`)}</Badge>
                        {e.reason && <Text size="xs" c="dimmed">{reason(e.reason)}</Text>}
                      </Table.Td>
                      <Table.Td>{actor(e)}</Table.Td>
                      <Table.Td>{member(e.user_id)}</Table.Td>
                      <Table.Td><Text size="sm">{e.ip ?? '—'}</Text></Table.Td>
                      <Table.Td>
                        <Button size="compact-sm" variant="subtle" aria-expanded={expanded} aria-controls={expanded ? detailsId : undefined}
                          aria-label={t('audit.showDetails', { event: typeLabel(e.type), time: formatTime(e.occurred_at, locale, timeZone) })}
                          onClick={() => toggle(e.id)}>
                          {t('audit.details')}
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                    {expanded && (
                      <Table.Tr id={detailsId}>
                        <Table.Td colSpan={COLUMNS} bg="var(--mantine-color-default-hover)"><EventDetails event={e} /></Table.Td>
                      </Table.Tr>
                    )}
                  </Fragment>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
      {events.hasNextPage && (
        <Center>
          <Button variant="default" loading={events.isFetchingNextPage} onClick={() => void events.fetchNextPage()}>{t('app.loadMore')}</Button>
        </Center>
      )}
    </Stack>
  );
}
