/** /users/:userId: one member's account, access actions and related pages (admins). */
import type { ReactNode } from 'react';
import { Anchor, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { PageHeader } from '../../../components/PageHeader';
import { QueryState } from '../../../components/QueryState';
import { RequireRole } from '../../../components/RequireRole';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';
import { AccessActions } from '../components/AccessActions';
import { AccountForm } from '../components/AccountForm';
import { AccountBadges, RoleBadge } from '../components/UserBadges';
import { useUser, type User } from '../hooks';

export function UserPage() {
  const t = useT();
  return <RequireRole min="admin" title={t('users.title')}><Member /></RequireRole>;
}

function Member() {
  const t = useT();
  const { userId = '' } = useParams();
  const user = useUser(userId);
  return (
    <QueryState query={user}>
      {(u) => (
        <>
          <PageHeader title={u.name} actions={<Button component={Link} to="/users" variant="default">{t('users.all')}</Button>} />
          <Stack>
            <Summary user={u} />
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              {/* Remounted on each version: the form starts again from the member as saved. */}
              <AccountForm key={`account-${u.version}`} user={u} onReload={() => void user.refetch()} />
              <AccessActions user={u} onReload={() => void user.refetch()} />
            </SimpleGrid>
            <Related user={u} />
          </Stack>
        </>
      )}
    </QueryState>
  );
}

function Summary({ user }: { user: User }) {
  const t = useT();
  const item = (label: string, value: ReactNode) => (
    <Stack gap={2}><Text size="xs" c="dimmed">{label}</Text><div>{value}</div></Stack>
  );
  return (
    <Paper withBorder p="md">
      <Group gap="xl" wrap="wrap">
        {item(t('users.role'), <RoleBadge role={user.role} />)}
        {item(t('users.status'), <AccountBadges user={user} />)}
        {item(t('users.secondFactor'), <Text size="sm">{user.two_factor_enabled ? t('users.on') : t('users.off')}</Text>)}
        {item(t('users.lastSignIn'), <Text size="sm">{user.last_sign_in_at ? <Time value={user.last_sign_in_at} /> : t('users.never')}</Text>)}
        {item(t('users.created'), <Text size="sm"><Time value={user.created_at} /></Text>)}
      </Group>
    </Paper>
  );
}

function Related({ user }: { user: User }) {
  const t = useT();
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="related-heading">
      <Title order={2} size="h4" id="related-heading" mb="xs">{t('users.related')}</Title>
      <Group gap="lg">
        <Anchor component={Link} to={`/api-keys?owner=${user.id}`}>{t('users.keysOf', { name: user.name })}</Anchor>
        <Anchor component={Link} to={`/audit?user=${user.id}`}>{t('users.eventsOf', { name: user.name })}</Anchor>
      </Group>
    </Paper>
  );
}
