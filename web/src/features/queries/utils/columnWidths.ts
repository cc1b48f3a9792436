/**
 * Column widths for a result table, from the header and the first rows' text: wide enough for
 * what most cells hold, within bounds, so a fixed-layout table reads well without measuring the
 * DOM. Pure.
 */
export type Cell = string | number | boolean | null;

const CHAR_PX = 8;
const PADDING_PX = 28;

export function cellText(value: Cell | undefined): string {
  if (value === null || value === undefined) return 'NULL';
  return String(value);
}

export function columnWidths(headers: readonly string[], rows: readonly (readonly Cell[])[], options: { min?: number; max?: number; sample?: number } = {}): number[] {
  const min = options.min ?? 72;
  const max = options.max ?? 360;
  const sample = rows.slice(0, options.sample ?? 200);
  return headers.map((h, i) => {
    let longest = h.length;
    for (const row of sample) longest = Math.max(longest, Math.min(cellText(row[i]).length, 200));
    return Math.max(min, Math.min(max, Math.round(longest * CHAR_PX + PADDING_PX)));
  });
}

const NUMERIC = /^(int[248]?|integer|bigint|smallint|tinyint|mediumint|float[48]?|real|double|decimal|numeric|number|money|serial|bigserial|smallserial|oid)\b/i;

/** Whether a database type name is numeric (its cells align right). */
export const isNumericType = (type: string): boolean => NUMERIC.test(type.trim());
