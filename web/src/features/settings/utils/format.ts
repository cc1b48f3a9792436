/** Bytes as a person reads them (1 KB = 1,024 bytes): 512 B, 1.5 KB, 23 MB, 4.2 GB. */
export function formatBytes(bytes: number, locale = 'en'): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: 0 }).format(value)} ${units[unit]}`;
}

/** Role mapping rows (claim value → role) from the API's object, in a stable order, and back. */
export interface MappingRow { value: string; role: 'viewer' | 'editor' | 'admin' }

export const mappingRows = (mapping: Record<string, MappingRow['role']>): MappingRow[] =>
  Object.entries(mapping).map(([value, role]) => ({ value, role }));

/** Rows with an empty claim value are left out; a later row for the same value wins. */
export function mappingObject(rows: MappingRow[]): Record<string, MappingRow['role']> {
  const out: Record<string, MappingRow['role']> = {};
  for (const row of rows) if (row.value.trim() !== '') out[row.value.trim()] = row.role;
  return out;
}

/** A text field's value for the API: trimmed, and null when empty. */
export const textOrNull = (value: string): string | null => (value.trim() === '' ? null : value.trim());
