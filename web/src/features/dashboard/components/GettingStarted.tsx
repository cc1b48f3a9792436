/**
 * The first steps, while no report exists yet: what a report needs, in the order it needs it
 * (a connection, a query on it, a channel, the report with its delivery), each with its link for
 * a role that may take it. Viewers, who take none, see nothing.
 */
import { Anchor, List, Paper, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { atLeast, useCurrentUser, type Role } from '../../../api/session';
import { useT } from '../../../i18n';

const STEPS: { key: string; to: string; min: Role }[] = [
  { key: 'connection', to: '/connections/new', min: 'admin' },
  { key: 'query', to: '/queries/new', min: 'editor' },
  { key: 'channel', to: '/channels/new', min: 'admin' },
  { key: 'report', to: '/reports/new', min: 'editor' },
];

export function GettingStarted() {
  const t = useT();
  const me = useCurrentUser();
  if (!atLeast(me.role, 'editor')) return null;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="getting-started">
      <Title order={2} size="h4" mb="xs" id="getting-started">{t('dashboard.start.title')}</Title>
      <Text size="sm" mb="sm">{t('dashboard.start.intro')}</Text>
      <List type="ordered" spacing="xs" size="sm">
        {STEPS.map((s) => (
          <List.Item key={s.key}>
            {atLeast(me.role, s.min)
              ? <Anchor component={Link} to={s.to} size="sm">{t(`dashboard.start.${s.key}`)}</Anchor>
              : <Text span size="sm">{t(`dashboard.start.${s.key}`)}</Text>}
            {': '}<Text span size="sm" c="dimmed">{t(`dashboard.start.${s.key}Help`)}{atLeast(me.role, s.min) ? '' : ` ${t('dashboard.start.adminDoes')}`}</Text>
          </List.Item>
        ))}
      </List>
    </Paper>
  );
}
