/** Runs as a table: when (the link to the run), report, status, trigger, duration and rows. */
import { Anchor, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { StatusBadge } from '../../../components/StatusBadge';
import { Time, formatDuration } from '../../../components/Time';
import { useT } from '../../../i18n';

export function RunsTable({ runs, titles }: { runs: Schemas['RunSummary'][]; titles: Map<string, string> | undefined }) {
  const t = useT();
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t('runs.col.when')}</Table.Th>
            <Table.Th scope="col">{t('runs.col.report')}</Table.Th>
            <Table.Th scope="col">{t('runs.col.status')}</Table.Th>
            <Table.Th scope="col">{t('runs.col.trigger')}</Table.Th>
            <Table.Th scope="col">{t('runs.col.duration')}</Table.Th>
            <Table.Th scope="col">{t('runs.col.rows')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.map((run) => (
            <Table.Tr key={run.id}>
              <Table.Td>
                <Anchor component={Link} to={`/runs/${run.id}`} size="sm">
                  <Time value={run.started_at ?? run.created_at} />
                </Anchor>
              </Table.Td>
              <Table.Td>{titles?.get(run.report_id) ?? <Text span c="dimmed">{t('runs.unknownReport')}</Text>}</Table.Td>
              <Table.Td><StatusBadge status={run.status} /></Table.Td>
              <Table.Td>{t(`runs.trigger.${run.trigger}`)}{run.deliver ? '' : ` · ${t('runs.noDelivery')}`}</Table.Td>
              <Table.Td>{formatDuration(run.duration_ms)}</Table.Td>
              <Table.Td>{run.row_count ?? '—'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
