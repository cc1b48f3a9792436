/**
 * The sessions of this account (newest first): where and how each signed in, when it was last
 * seen; sign out one, every other one, or every one including this.
 */
import { Badge, Button, Group, Table, Text, VisuallyHidden } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { keys } from '../../../api/keys';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { QueryState } from '../../../components/QueryState';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { useRevokeAllSessions, useRevokeOtherSessions, useRevokeSession, useSessions } from '../hooks';
import { describeUserAgent } from '../utils/userAgent';
import { Section } from './Section';

type Session = Schemas['Session'];

function Device({ session }: { session: Session }) {
  const t = useT();
  const device = describeUserAgent(session.user_agent);
  const text = !device ? t('profile.sessions.unknownDevice')
    : device.system ? t('profile.sessions.device', { app: device.app, system: device.system }) : device.app;
  return (
    <Group gap="xs" wrap="nowrap">
      <Text size="sm" title={session.user_agent ?? undefined}>{text}</Text>
      {session.current && <Badge variant="light" color="green">{t('profile.sessions.current')}</Badge>}
    </Group>
  );
}

function Rows({ items }: { items: Session[] }) {
  const t = useT();
  const revoke = useRevokeSession();
  return (
    <>
      {revoke.isError && <ProblemAlert error={revoke.error} />}
      <Table.ScrollContainer minWidth={640}>
        <Table verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('profile.sessions.deviceColumn')}</Table.Th>
              <Table.Th>{t('profile.sessions.ip')}</Table.Th>
              <Table.Th>{t('profile.sessions.method')}</Table.Th>
              <Table.Th>{t('profile.sessions.signedIn')}</Table.Th>
              <Table.Th>{t('profile.sessions.lastSeen')}</Table.Th>
              <Table.Th><VisuallyHidden>{t('profile.actions')}</VisuallyHidden></Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td><Device session={s} /></Table.Td>
                <Table.Td>{s.ip ?? '—'}</Table.Td>
                <Table.Td>
                  {t(`profile.sessions.via.${s.method}`)}
                  {s.second_factor && ` + ${t(`auth.second.method.${s.second_factor}`)}`}
                </Table.Td>
                <Table.Td><Time value={s.created_at} /></Table.Td>
                <Table.Td><Time value={s.last_seen_at} /></Table.Td>
                <Table.Td>
                  {!s.current && (
                    <Button size="compact-sm" variant="subtle" color="red" loading={revoke.isPending && revoke.variables === s.id}
                      onClick={() => revoke.mutate(s.id)}>{t('profile.sessions.revoke')}</Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}

export function SessionsSection() {
  const t = useT();
  const sessions = useSessions();
  const others = useRevokeOtherSessions();
  const all = useRevokeAllSessions();
  const client = useQueryClient();
  const navigate = useNavigate();
  const otherIds = (sessions.data?.items ?? []).filter((s) => !s.current).map((s) => s.id);
  const signOutEverywhere = () => all.mutate(undefined, {
    onSuccess: async () => {
      client.clear();
      client.setQueryData(keys.me, null);
      await navigate('/sign-in?signed_out=1');
    },
  });
  return (
    <Section title={t('profile.sessions.title')} description={t('profile.sessions.intro')}
      actions={(
        <>
          <Button variant="default" disabled={otherIds.length === 0} loading={others.isPending} onClick={() => others.mutate(otherIds)}>
            {t('profile.sessions.revokeOthers')}
          </Button>
          <Button variant="light" color="red" loading={all.isPending} onClick={signOutEverywhere}>{t('profile.sessions.revokeAll')}</Button>
        </>
      )}>
      {others.isError && <ProblemAlert error={others.error} />}
      {all.isError && <ProblemAlert error={all.error} />}
      <QueryState query={sessions}>{(data) => <Rows items={data.items} />}</QueryState>
    </Section>
  );
}
