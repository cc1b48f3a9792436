/** A result table as aligned monospace text (chat code blocks, email text parts). */
import type { CellValue } from '../../domain/plugins/connector.js';

export const cellText = (v: CellValue): string => (v === null ? '' : String(v));

/** Columns padded to their widest cell (cells cut at `maxCell` characters). */
export function textTable(columns: string[], rows: CellValue[][], maxCell = 40): string {
  const cut = (s: string) => (s.length > maxCell ? `${s.slice(0, maxCell - 1)}…` : s);
  const grid = [columns.map(cut), ...rows.map((r) => r.map((v) => cut(cellText(v))))];
  const widths = columns.map((_, i) => Math.max(...grid.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(grid[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...grid.slice(1).map(line)].join('\n');
}
