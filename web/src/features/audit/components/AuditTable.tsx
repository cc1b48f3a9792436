/** The events, newest first, each row opening to its details; "Load more" follows the cursor. */
import { Fragment, useState } from 'react';
import { Anchor, Badge, Button, Center, Paper, Stack, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { EmptyState } from '../../../components/EmptyState';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { Time, formatTime } from '../../../components/Time';
import { useI18n } from '../../../i18n';
import { useUserNames } from '../../users/hooks';
import { useSecurityEvents, type SecurityEvent } from '../hooks';
import type { AuditFilters } from '../utils/filters';
import { EventDetails } from './EventDetails';
import { Loading } from '../../../components/Loading';

const COLUMNS = 7;

/** The page of an event's target, where it has one (a link's is its run's). */
function targetPage(type: string, id: string, details: unknown): string | null {
  const pages: Record<string, string> = { connection: 'connections', channel: 'channels', query: 'queries', report: 'reports' };
  if (type === 'api_key') return '/api-keys'; // keys have one page, the list
  if (pages[type]) return `/${pages[type]}/${id}`;
  const runId = details && typeof details === 'object' ? (details as Record<string, unknown>).run_id : undefined;
  if (type === 'link' && typeof runId === 'string') return `/runs/${runId}`;
  return null;
}

export function AuditTable({ filters }: { filters: AuditFilters }) {
  const { t, locale, timeZone } = useI18n();
  const events = useSecurityEvents(filters);
  const nameOf = useUserNames();
  const [open, setOpen] = useState<Set<string>>(new Set());
  if (events.isPending) return <Center p="md"><Loading size="sm" /></Center>;
  if (events.isError) return <ProblemAlert error={events.error} onRetry={() => void events.refetch()} />;
  const rows = events.data.pages.flatMap((p) => p.items);
  if (rows.length === 0) return <Paper withBorder><EmptyState title={t('audit.empty')} /></Paper>;

  const typeLabel = (type: string) => { const text = t(`audit.type.${type}`); return text === `audit.type.${type}` ? type : text; };
  const member = (id: string | null) => (id
    ? <Anchor component={Link} to={`/users/${id}`} size="sm">{nameOf(id) ?? t('audit.unknownUser')}</Anchor>
    : <Text size="sm" c="dimmed">—</Text>);
  /**
   * What the event is about: a member (user events, and any event about another member than the
   * one who acted), else its target: a connection, channel, query, report, link, delivery or API
   * key, by the name the event recorded, linked where it has a page.
   */
  const about = (e: SecurityEvent) => {
    const target = e.target;
    // A member the event is about (not the one who acted): that member, as for user events.
    const aboutMember = e.user_id !== null && e.user_id !== e.actor.user_id;
    if (!target || aboutMember || target.type === 'user' || target.type === 'session' || target.type === 'passkey') return member(e.user_id);
    const recorded = e.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>).name : undefined;
    const kind = t(`audit.target.${target.type}`) === `audit.target.${target.type}` ? target.type : t(`audit.target.${target.type}`);
    const label = typeof recorded === 'string' && recorded !== '' ? `${kind} ${recorded}` : `${kind} ${target.id.slice(0, 8)}…`;
    const to = targetPage(target.type, target.id, e.details);
    return to ? <Anchor component={Link} to={to} size="sm">{label}</Anchor> : <Text size="sm">{label}</Text>;
  };
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
                      <Table.Td>{about(e)}</Table.Td>
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
