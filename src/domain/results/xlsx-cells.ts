/**
 * One xlsx cell as the downloads write it: the sheet XML's cell for a value, by the kind of its
 * column (dates and timestamps as date cells, exact numbers as numbers, the rest inline text).
 * Shared by the value-by-value writer (streams.ts) and the byte-level one (xlsx-bytes.ts).
 */
import type { CellValue, ResultColumn } from '../plugins/connector.js';

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
/** Characters XML 1.0 cannot carry at all. */
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
export const xmlText = (s: string) => s.replace(INVALID_XML, '\ufffd').replace(/[&<>"]/g, (c) => XML_ESCAPES[c]!);

/** The spreadsheet column name of a 0-based index: 0 → A, 26 → AA. */
export function columnName(index: number): string {
  let n = index + 1;
  let name = '';
  while (n > 0) { const r = (n - 1) % 26; name = String.fromCharCode(65 + r) + name; n = Math.floor((n - 1) / 26); }
  return name;
}

export type CellKind = 'date' | 'datetime' | 'other';

/** How a column's values are written, from the database's type name. */
export function kindOf(column: ResultColumn): CellKind {
  const t = column.type.toLowerCase();
  if (t === 'date') return 'date';
  if (/^(timestamp|timestamptz|datetime)/.test(t)) return 'datetime';
  return 'other';
}

const DAY_MS = 86_400_000;
/** Excel's day 0 (1899-12-30, so that 1900-03-01 is 61 as in every spreadsheet program). */
const EPOCH_MS = Date.UTC(1899, 11, 30);

/** A spreadsheet serial date for an ISO date or timestamp text; undefined when it is not one. */
export function serialOf(text: string, kind: 'date' | 'datetime'): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  if (year < 1900 || year > 9999) return undefined;
  let ms = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), Math.round(Number(m[7] ?? 0) * 1000));
  if (kind === 'datetime' && m[8] && m[8] !== 'Z') {
    // An offset: the cell shows UTC, as every other time in Herald.
    const sign = m[8][0] === '-' ? -1 : 1;
    const [hh, mm] = [Number(m[8].slice(1, 3)), Number(m[8].slice(-2).replace(':', '') || 0)];
    ms -= sign * (hh * 60 + (m[8].length > 3 ? mm : 0)) * 60_000;
  }
  return (ms - EPOCH_MS) / DAY_MS;
}

/** A decimal text that a double carries exactly as written (at most 15 significant digits). */
export function exactNumber(text: string): number | undefined {
  const m = /^-?(\d+)(?:\.(\d+))?(?:[eE][+-]?\d+)?$/.exec(text);
  if (!m) return undefined;
  const digits = `${m[1]}${m[2] ?? ''}`.replace(/^0+/, '').replace(/0+$/, '');
  if (digits.length > 15) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** Style indexes of styles.xml: 0 plain, 1 bold (header), 2 date, 3 date and time. */
export function cellXml(ref: string, value: CellValue, kind: CellKind): string {
  if (value === null) return '';
  if (typeof value === 'boolean') return `<c r="${ref}" t="b"><v>${value ? 1 : 0}</v></c>`;
  if (typeof value === 'number') return Number.isFinite(value) ? `<c r="${ref}"><v>${value}</v></c>` : `<c r="${ref}" t="inlineStr"><is><t>${value}</t></is></c>`;
  if (kind !== 'other') {
    const serial = serialOf(value, kind);
    if (serial !== undefined) return `<c r="${ref}" s="${kind === 'date' ? 2 : 3}"><v>${serial}</v></c>`;
  } else {
    const n = exactNumber(value);
    if (n !== undefined) return `<c r="${ref}"><v>${n}</v></c>`;
  }
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlText(value)}</t></is></c>`;
}

