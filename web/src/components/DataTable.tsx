/**
 * A virtualised table: only the rows in view (and a few more) are in the DOM, so thousands of rows
 * scroll smoothly. A real <table> with a sticky header, fixed column widths (the last takes the
 * rest; long text is cut with an ellipsis and shown whole on hover), rows of one height, alternating
 * shades, aria-rowcount and aria-rowindex so
 * screen readers know the full size, inside a focusable, labelled region that scrolls with the
 * keyboard (arrows, Page Up/Down, Home/End). `onEndReached` makes it an infinite list.
 *
 *   <DataTable label="Result" rows={rows} columns={[{ id: 'id', header: 'id', cell: (r) => r[0] }]} />
 */
import { useEffect, useRef, type CSSProperties, type ReactNode } from 'react';
import { Table, Text } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';

export interface DataColumn<T> {
  id: string;
  header: ReactNode;
  /** The cell's content. */
  cell: (row: T, index: number) => ReactNode;
  /** The full text shown on hover (title) when the cell is cut off. */
  title?: (row: T, index: number) => string | undefined;
  /** Width in pixels (default 160). */
  width?: number;
  align?: 'left' | 'right' | 'center';
}

export interface DataTableProps<T> {
  columns: readonly DataColumn<T>[];
  rows: readonly T[];
  /** The table's accessible name (also the scrolling region's). */
  label: string;
  rowKey?: (row: T, index: number) => string | number;
  /** The height of the scrolling area (default 28rem). */
  height?: CSSProperties['height'];
  /** Every row's height in pixels (default 36); cell content is kept to one line. */
  rowHeight?: number;
  /** Rows rendered beyond the visible ones, each way (default 12). */
  overscan?: number;
  /** A first column with the row's number. */
  rowNumbers?: boolean;
  /** Called when the last rows come into view, and again as they change: load the next page unless one is loading or none is left. */
  onEndReached?: () => void;
  /** Shown instead of the body when there are no rows. */
  empty?: ReactNode;
}

const cellStyle = (align: DataColumn<unknown>['align']): CSSProperties => ({
  whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis', textAlign: align ?? 'left',
});
/** Body cells keep the row at its height (no measuring, so scrolling never jumps). */
const bodyCellStyle = (align: DataColumn<unknown>['align']): CSSProperties => ({ ...cellStyle(align), paddingTop: 0, paddingBottom: 0 });

export function DataTable<T>(props: DataTableProps<T>) {
  const { columns, rows, label, rowKey, height = '28rem', rowHeight = 36, overscan = 12, rowNumbers = false, onEndReached, empty } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan,
  });
  const items = virtualizer.getVirtualItems();
  const last = items.length > 0 ? items[items.length - 1]!.index : -1;
  const reached = useRef(onEndReached);
  reached.current = onEndReached;
  useEffect(() => {
    if (rows.length > 0 && last >= rows.length - 1 - overscan) reached.current?.();
  }, [last, rows.length, overscan]);

  const numberWidth = Math.max(48, String(rows.length).length * 9 + 24);
  const widths = columns.map((c) => c.width ?? 160);
  const total = widths.reduce((a, b) => a + b, 0) + (rowNumbers ? numberWidth : 0);
  const top = items.length > 0 ? items[0]!.start : 0;
  const bottom = items.length > 0 ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;
  const span = columns.length + (rowNumbers ? 1 : 0);

  return (
    <div ref={scroller} role="region" aria-label={label} tabIndex={0} data-data-table=""
      style={{ height: rows.length === 0 ? 'auto' : height, overflow: 'auto', border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-sm)' }}>
      <Table aria-label={label} aria-rowcount={rows.length + 1} layout="fixed" stickyHeader highlightOnHover
        style={{ width: '100%', minWidth: total }}>
        <colgroup>
          {rowNumbers && <col style={{ width: numberWidth }} />}
          {widths.map((w, i) => <col key={columns[i]!.id} style={i === widths.length - 1 ? undefined : { width: w }} />)}
        </colgroup>
        <Table.Thead>
          <Table.Tr aria-rowindex={1}>
            {rowNumbers && <Table.Th style={cellStyle('right')}><Text span size="xs" c="dimmed">#</Text></Table.Th>}
            {columns.map((c) => <Table.Th key={c.id} style={cellStyle(c.align)} title={typeof c.header === 'string' ? c.header : undefined}>{c.header}</Table.Th>)}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.length === 0 && <Table.Tr><Table.Td colSpan={span}>{empty}</Table.Td></Table.Tr>}
          {top > 0 && <tr aria-hidden="true" style={{ height: top }}><td colSpan={span} style={{ padding: 0, border: 0 }} /></tr>}
          {items.map((item) => {
            const row = rows[item.index]!;
            return (
              <Table.Tr key={rowKey ? rowKey(row, item.index) : item.index} aria-rowindex={item.index + 2}
                style={{ height: rowHeight, ...(item.index % 2 === 1 ? { backgroundColor: 'var(--mantine-color-default-hover)' } : {}) }}>
                {rowNumbers && <Table.Td style={bodyCellStyle('right')}><Text span size="xs" c="dimmed">{item.index + 1}</Text></Table.Td>}
                {columns.map((c) => (
                  <Table.Td key={c.id} style={bodyCellStyle(c.align)} title={c.title?.(row, item.index)}>{c.cell(row, item.index)}</Table.Td>
                ))}
              </Table.Tr>
            );
          })}
          {bottom > 0 && <tr aria-hidden="true" style={{ height: bottom }}><td colSpan={span} style={{ padding: 0, border: 0 }} /></tr>}
        </Table.Tbody>
      </Table>
    </div>
  );
}
