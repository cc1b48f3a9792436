/** The first rows of the result (at most 20), as a plain table with the columns' types. */
import { Table, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { useT } from '../../../i18n';
import { cellText } from '../utils/describe';
import { Section } from './Section';

export function RunSample({ run }: { run: Schemas['Run'] }) {
  const t = useT();
  const columns = run.columns ?? [];
  const rows = run.sample ?? [];
  return (
    <Section title={t('runs.sample')}>
      {columns.length === 0 ? <Text size="sm" c="dimmed">{t('runs.sampleNone')}</Text> : (
        <>
          <Text size="sm" c="dimmed" mb="xs">{t('runs.sampleOf', { shown: rows.length, total: run.row_count ?? rows.length })}</Text>
          <Table.ScrollContainer minWidth={320}>
            <Table striped withTableBorder withColumnBorders verticalSpacing={4} fz="sm" aria-label={t('runs.sample')}>
              <Table.Thead>
                <Table.Tr>
                  {columns.map((c, i) => (
                    <Table.Th key={i} scope="col">
                      {c.name} <Text span size="xs" c="dimmed" fw={400}>{c.type}</Text>
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((row, r) => (
                  <Table.Tr key={r}>
                    {row.map((cell, c) => <Table.Td key={c} c={cell === null ? 'dimmed' : undefined} ff="monospace">{cellText(cell)}</Table.Td>)}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </Section>
  );
}
