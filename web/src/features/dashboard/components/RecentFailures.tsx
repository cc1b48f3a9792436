/** The latest failed or partial runs, newest first, each leading to its run. */
import { Anchor, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';

export function RecentFailures({ failures }: { failures: Schemas['Dashboard']['recent_failures'] }) {
  const t = useT();
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="recent-failures">
      <Title order={2} size="h4" mb="sm" id="recent-failures">{t('dashboard.failures')}</Title>
      {failures.length === 0 ? <Text size="sm" c="dimmed">{t('dashboard.failuresNone')}</Text> : (
        <Stack gap="xs" component="ul" p={0} m={0} style={{ listStyle: 'none' }}>
          {failures.map((f) => (
            <Group component="li" key={f.run_id} justify="space-between" wrap="nowrap" gap="sm">
              <Stack gap={0} style={{ minWidth: 0 }}>
                <Anchor component={Link} to={`/runs/${f.run_id}`} size="sm" fw={500}>{f.report_title}</Anchor>
                <Text size="xs" c="dimmed"><Time value={f.finished_at} />{f.error_code && <> · <Text span ff="monospace" size="xs">{f.error_code}</Text></>}</Text>
              </Stack>
              <StatusBadge status={f.status} />
            </Group>
          ))}
        </Stack>
      )}
    </Paper>
  );
}
