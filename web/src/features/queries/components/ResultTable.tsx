/** A preview's rows in the virtualised DataTable: each column's type under its name, NULL set apart, numbers aligned right. */
import { useMemo } from 'react';
import { Text } from '@mantine/core';
import { DataTable, type DataColumn } from '../../../components/DataTable';
import { useT } from '../../../i18n';
import type { Preview } from '../hooks';
import { cellText, columnWidths, isNumericType, type Cell } from '../utils/columnWidths';

type Row = readonly Cell[];

export function ResultTable({ preview }: { preview: Preview }) {
  const t = useT();
  const rows = preview.rows as Row[];
  const columns = useMemo((): DataColumn<Row>[] => {
    const widths = columnWidths(preview.columns.map((c) => c.name), rows);
    return preview.columns.map((c, i) => ({
      id: `c${i}`,
      width: widths[i],
      align: isNumericType(c.type) ? 'right' : 'left',
      header: <><div>{c.name}</div><Text span size="xs" c="dimmed" fw={400}>{c.type}</Text></>,
      title: (row) => cellText(row[i]),
      cell: (row) => (row[i] === null || row[i] === undefined
        ? <Text span size="sm" c="dimmed" fs="italic">NULL</Text>
        : cellText(row[i])),
    }));
  }, [preview.columns, rows]);
  return <DataTable label={t('queries.result')} columns={columns} rows={rows} rowNumbers height="28rem" empty={<Text size="sm" c="dimmed">{t('queries.noRows')}</Text>} />;
}
