/** The next scheduled runs, soonest first. */
import { Anchor, Paper, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';

export function NextRuns({ runs }: { runs: Schemas['Dashboard']['next_runs'] }) {
  const t = useT();
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="next-runs">
      <Title order={2} size="h4" mb="sm" id="next-runs">{t('dashboard.nextRuns')}</Title>
      {runs.length === 0 ? <Text size="sm" c="dimmed">{t('dashboard.nextRunsNone')}</Text> : (
        <Table>
          <Table.Thead>
            <Table.Tr><Table.Th scope="col">{t('dashboard.report')}</Table.Th><Table.Th scope="col">{t('dashboard.at')}</Table.Th></Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {runs.map((r) => (
              <Table.Tr key={r.report_id}>
                <Table.Td><Anchor component={Link} to={`/reports/${r.report_id}`} size="sm">{r.title}</Anchor></Table.Td>
                <Table.Td><Time value={r.next_run_at} /></Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
