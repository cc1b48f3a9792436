/**
 * A stored result in a file format people open: csv (RFC 4180, UTF-8, header row), json
 * ({columns, rows}, values as api-spec.md's result rows) and xlsx (header row, numbers as
 * numeric cells). These build a whole file in memory for attachments, which are capped
 * (MAX_ATTACHMENT_BYTES); downloads of any size stream (result-files issue).
 */
import * as XLSX from 'xlsx';
import { DomainError } from '../../core/errors.js';
import { slugOf } from '../../core/slug.js';
import type { StoredResult } from '../artifacts/ports.js';
import type { CellValue } from '../plugins/connector.js';
import type { ResultFormat } from '../channels/model.js';

/** The largest attachment a delivery sends; larger results must go as a link. */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

export const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const satisfies Record<ResultFormat, string>;

const tooLarge = () => new DomainError('delivery.attachment_too_large',
  `The result is larger than the attachment limit of ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB; send a link instead`);

export function csvCell(value: CellValue): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The file of a result in `format`, at most `maxBytes` (else delivery.attachment_too_large). */
export async function resultFile(result: StoredResult, format: ResultFormat, maxBytes = MAX_ATTACHMENT_BYTES): Promise<Buffer> {
  const names = result.columns.map((c) => c.name);
  if (format === 'csv') {
    const parts: Buffer[] = [Buffer.from(`${names.map(csvCell).join(',')}\r\n`)];
    let size = parts[0]!.length;
    for await (const batch of result.batches) {
      let chunk = '';
      for (const row of batch) chunk += `${row.map(csvCell).join(',')}\r\n`;
      const b = Buffer.from(chunk);
      size += b.length;
      if (size > maxBytes) throw tooLarge();
      parts.push(b);
    }
    return Buffer.concat(parts);
  }
  if (format === 'json') {
    const parts: Buffer[] = [Buffer.from(`{"columns":${JSON.stringify(result.columns)},"rows":[`)];
    let size = parts[0]!.length;
    let first = true;
    for await (const batch of result.batches) {
      let chunk = '';
      for (const row of batch) { chunk += `${first ? '' : ','}${JSON.stringify(row)}`; first = false; }
      const b = Buffer.from(chunk);
      size += b.length;
      if (size > maxBytes) throw tooLarge();
      parts.push(b);
    }
    parts.push(Buffer.from(']}'));
    return Buffer.concat(parts);
  }
  // xlsx: the sheet is built in memory; the rows' JSON size bounds it (the zip is smaller).
  const rows: CellValue[][] = [names];
  let size = 0;
  for await (const batch of result.batches) {
    for (const row of batch) { size += JSON.stringify(row).length; rows.push(row); }
    if (size > maxBytes) throw tooLarge();
  }
  const sheet = XLSX.utils.aoa_to_sheet(rows);
  sheet['!freeze'] = { xSplit: 0, ySplit: 1 };
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'Result');
  const out = XLSX.write(book, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
  if (out.length > maxBytes) throw tooLarge();
  return out;
}

/** A file name from the report title and the run's time: "daily-sales-2026-11-22-0800.xlsx". */
export function resultFileName(title: string, at: Date, format: ResultFormat): string {
  const slug = slugOf(title, 'result');
  const stamp = at.toISOString().slice(0, 16).replace('T', '-').replace(':', '');
  return `${slug}-${stamp}.${format}`;
}
