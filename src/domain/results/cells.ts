/**
 * One csv cell as the downloads write it (RFC 4180 quoting; formula-safe text as OWASP advises),
 * shared by the value-by-value writer (streams.ts) and the byte-level one (ndjson-bytes.ts).
 */
import type { CellValue } from '../plugins/connector.js';

/** A csv field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export function csvCell(value: CellValue): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** What starts a formula in spreadsheet programs (OWASP, CSV injection): =, +, -, @, tab, carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain decimal number (-5, +1.5, -2e3): spreadsheets read it as that number, never run it. */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/**
 * Database types whose values are numbers (PostgreSQL's and MySQL's names): their values are
 * never changed, whether they arrive as numbers or, beyond what a double carries, as text.
 */
export const NUMERIC_TYPE = /^(int[248]?|smallint|mediumint|tinyint|integer|bigint|numeric|decimal|float[48]?|real|double( precision)?|money|oid|year)( unsigned)?$/i;

/** A text as OWASP advises against CSV injection: a formula's start is prefixed with a single quote. */
export function formulaSafeText(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

