/**
 * A stored result as a download that streams: csv (RFC 4180, UTF-8, header row, CRLF), json
 * ({"columns": [...], "rows": [...]}, values as openapi.yaml's ResultValue) and xlsx. Each reads
 * the stored file batch by batch and yields bytes as it goes, so memory does not grow with the
 * row count.
 *
 * csv may be formula-safe (on by default for attachments, asked for by downloads): text that a
 * spreadsheet program would run as a formula gets a leading single quote (formulaSafeText).
 *
 * xlsx is written here, not by a library: SheetJS and exceljs both hold a large workbook in
 * memory (measured in scripts/bench/result-files.ts). The sheet XML uses inline strings (no
 * shared-string table to keep), goes through a streaming zip (zip.ts) and opens in spreadsheet
 * programs: a header row in bold, frozen; numbers as numeric cells where the value is exactly
 * what was returned (at most 15 significant digits), otherwise text so that nothing is lost;
 * dates and timestamps as date cells. A result longer than a sheet holds (XLSX_MAX_ROWS, Excel's
 * limit) goes on to further sheets ("Result 2", ...), each with the header; past 4 GiB the zip
 * writer writes ZIP64 records.
 */
import type { StoredResult } from '../artifacts/ports.js';
import type { CellValue, ResultColumn } from '../plugins/connector.js';
import type { ResultFormat } from '../channels/model.js';
import { zipStream, type ZipEntry } from './zip.js';
import { csvCell, formulaSafeText, NUMERIC_TYPE } from './cells.js';
import { csvOfNdjson, jsonRowsOfNdjson } from './ndjson-bytes.js';

export { csvCell, formulaSafeText } from './cells.js';

/** Bytes handed on at once (batches of rows are joined up to about this size). */
const CHUNK = 64 * 1024;

/** How a stream writes its file. */
export interface StreamOptions {
  /** csv: text cells that spreadsheet programs would run as formulas get a leading single quote. */
  formulaSafe?: boolean;
}

/** The csv writer of one cell per column: formula-safe for text columns when asked. */
function csvWriters(result: StoredResult, options: StreamOptions): Array<(value: CellValue) => string> {
  return result.columns.map((column) => {
    if (!options.formulaSafe || NUMERIC_TYPE.test(column.type)) return csvCell;
    // Only text is made safe: numbers and booleans are written as they are.
    return (value: CellValue) => csvCell(typeof value === 'string' ? formulaSafeText(value) : value);
  });
}

const CSV_QUOTE = /[",\r\n]/;

export async function* csvStream(result: StoredResult, options: StreamOptions = {}): AsyncGenerator<Buffer> {
  const name = (text: string) => csvCell(options.formulaSafe ? formulaSafeText(text) : text);
  const cells = options.formulaSafe ? csvWriters(result, options) : undefined;
  yield Buffer.from(`${result.columns.map((c) => name(c.name)).join(',')}\r\n`);
  if (result.lines) {
    const safe = options.formulaSafe ? result.columns.map((column) => !NUMERIC_TYPE.test(column.type)) : undefined;
    for await (const lines of result.lines) {
      const bytes = csvOfNdjson(lines, safe);
      if (bytes.length > 0) yield bytes;
    }
    return;
  }
  for await (const batch of result.batches) {
    let chunk = '';
    for (const row of batch) {
      if (cells) {
        chunk += `${row.map((value, i) => (cells[i] ?? csvCell)(value)).join(',')}\r\n`;
      } else {
        // csvCell inlined: numbers and booleans never need quotes.
        for (let i = 0; i < row.length; i++) {
          if (i > 0) chunk += ',';
          const value = row[i];
          if (value === null || value === undefined) continue;
          if (typeof value !== 'string') chunk += String(value);
          else chunk += CSV_QUOTE.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
        }
        chunk += '\r\n';
      }
      if (chunk.length >= CHUNK) { yield Buffer.from(chunk); chunk = ''; }
    }
    if (chunk) yield Buffer.from(chunk);
  }
}

export async function* jsonStream(result: StoredResult): AsyncGenerator<Buffer> {
  yield Buffer.from(`{"columns":${JSON.stringify(result.columns)},"rows":[`);
  let first = true;
  if (result.lines) {
    for await (const lines of result.lines) {
      const rows = jsonRowsOfNdjson(lines, first);
      first = rows.first;
      if (rows.bytes.length > 0) yield rows.bytes;
    }
    yield Buffer.from(']}');
    return;
  }
  for await (const batch of result.batches) {
    let chunk = '';
    for (const row of batch) {
      chunk += `${first ? '' : ','}${JSON.stringify(row)}`;
      first = false;
      if (chunk.length >= CHUNK) { yield Buffer.from(chunk); chunk = ''; }
    }
    if (chunk) yield Buffer.from(chunk);
  }
  yield Buffer.from(']}');
}

// ---- xlsx ----

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
/** Characters XML 1.0 cannot carry at all. */
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const xmlText = (s: string) => s.replace(INVALID_XML, '\ufffd').replace(/[&<>"]/g, (c) => XML_ESCAPES[c]!);

/** The spreadsheet column name of a 0-based index: 0 → A, 26 → AA. */
export function columnName(index: number): string {
  let n = index + 1;
  let name = '';
  while (n > 0) { const r = (n - 1) % 26; name = String.fromCharCode(65 + r) + name; n = Math.floor((n - 1) / 26); }
  return name;
}

type CellKind = 'date' | 'datetime' | 'other';

/** How a column's values are written, from the database's type name. */
function kindOf(column: ResultColumn): CellKind {
  const t = column.type.toLowerCase();
  if (t === 'date') return 'date';
  if (/^(timestamp|timestamptz|datetime)/.test(t)) return 'datetime';
  return 'other';
}

const DAY_MS = 86_400_000;
/** Excel's day 0 (1899-12-30, so that 1900-03-01 is 61 as in every spreadsheet program). */
const EPOCH_MS = Date.UTC(1899, 11, 30);

/** A spreadsheet serial date for an ISO date or timestamp text; undefined when it is not one. */
function serialOf(text: string, kind: 'date' | 'datetime'): number | undefined {
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
function exactNumber(text: string): number | undefined {
  const m = /^-?(\d+)(?:\.(\d+))?(?:[eE][+-]?\d+)?$/.exec(text);
  if (!m) return undefined;
  const digits = `${m[1]}${m[2] ?? ''}`.replace(/^0+/, '').replace(/0+$/, '');
  if (digits.length > 15) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** Style indexes of styles.xml: 0 plain, 1 bold (header), 2 date, 3 date and time. */
function cellXml(ref: string, value: CellValue, kind: CellKind): string {
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

/**
 * Rows a worksheet holds, the header included (Excel's limit: 2^20; rows past it are dropped
 * without a word when the file is opened). A longer result goes on to further sheets, each with
 * the header again.
 */
export const XLSX_MAX_ROWS = 1_048_576;

/** The rows of a stored result taken a sheet at a time (a batch may straddle two sheets). */
class RowCursor {
  private batch: CellValue[][] = [];
  private at = 0;
  private readonly source: AsyncIterator<CellValue[][]>;
  private ended = false;

  constructor(batches: AsyncIterable<CellValue[][]>) { this.source = batches[Symbol.asyncIterator](); }

  /** Whether a row is left (reads the next batch when the current one is used up). */
  async more(): Promise<boolean> {
    while (this.at >= this.batch.length && !this.ended) {
      const next = await this.source.next();
      if (next.done) this.ended = true;
      else { this.batch = next.value; this.at = 0; }
    }
    return this.at < this.batch.length;
  }

  /** Up to `max` rows of the current batch (none once every row is taken). */
  async take(max: number): Promise<CellValue[][]> {
    if (!(await this.more())) return [];
    const rows = this.at === 0 && this.batch.length <= max ? this.batch : this.batch.slice(this.at, this.at + max);
    this.at += rows.length;
    return rows;
  }

  async close(): Promise<void> { if (!this.ended) { this.ended = true; await this.source.return?.(); } }
}

/** One worksheet: the header, then at most `rows` rows from the cursor. */
async function* sheetXml(columns: ResultColumn[], cursor: RowCursor, rows: number): AsyncGenerator<Buffer> {
  const names = columns.map((_, i) => columnName(i));
  const kinds = columns.map(kindOf);
  const lastCol = names[names.length - 1] ?? 'A';
  yield Buffer.from('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    + '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    + '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>'
    + `<cols>${columns.map((c, i) => `<col min="${i + 1}" max="${i + 1}" width="${Math.min(60, Math.max(10, c.name.length + 2))}" customWidth="1"/>`).join('')}</cols>`
    + '<sheetData>'
    + `<row r="1">${columns.map((c, i) => `<c r="${names[i]}1" s="1" t="inlineStr"><is><t xml:space="preserve">${xmlText(c.name)}</t></is></c>`).join('')}</row>`);
  let r = 1;
  const last = rows + 1;
  for (;;) {
    const batch = await cursor.take(last - r);
    if (batch.length === 0) break;
    let chunk = '';
    for (const row of batch) {
      r += 1;
      let cells = '';
      for (let i = 0; i < row.length; i++) cells += cellXml(`${names[i]}${r}`, row[i] ?? null, kinds[i]!);
      chunk += `<row r="${r}">${cells}</row>`;
      if (chunk.length >= CHUNK) { yield Buffer.from(chunk); chunk = ''; }
    }
    if (chunk) yield Buffer.from(chunk);
  }
  yield Buffer.from(`</sheetData><autoFilter ref="A1:${lastCol}${Math.max(1, r)}"/></worksheet>`);
}

/** Sheet names: "Result", then "Result 2", "Result 3", ... */
const sheetName = (n: number) => (n === 1 ? 'Result' : `Result ${n}`);

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const contentTypesXml = (sheets: number) => '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
  + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
  + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
  + '<Default Extension="xml" ContentType="application/xml"/>'
  + '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
  + range(sheets).map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')
  + '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
  + '</Types>';
const ROOT_RELS_XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
  + '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
  + '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
  + '</Relationships>';
// Relationship rId1 is the styles; rId(n+1) the sheet n.
const workbookXml = (sheets: number) => '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
  + '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
  + `<sheets>${range(sheets).map((n) => `<sheet name="${sheetName(n)}" sheetId="${n}" r:id="rId${n + 1}"/>`).join('')}</sheets></workbook>`;
const workbookRelsXml = (sheets: number) => '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
  + '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
  + '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
  + range(sheets).map((n) => `<Relationship Id="rId${n + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${n}.xml"/>`).join('')
  + '</Relationships>';
const STYLES_XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
  + '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
  + '<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/></numFmts>'
  + '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>'
  + '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
  + '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
  + '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
  + '<cellXfs count="4">'
  + '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
  + '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>'
  + '<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
  + '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
  + '</cellXfs></styleSheet>';

async function* once(text: string): AsyncGenerator<Buffer> { yield Buffer.from(text); }

/** How an xlsx file is written. */
export interface XlsxOptions {
  /** Rows per sheet, the header included (XLSX_MAX_ROWS; tests lower it). */
  maxRows?: number;
  /** Passed to the zip writer (tests lower it to exercise ZIP64). */
  zip64Above?: number;
}

/**
 * The parts of the workbook: the sheets first, as many as the rows need (a sheet holds
 * maxRows - 1 rows under its header), then the parts that name them. Part order in the archive
 * is free (OPC); spreadsheet programs find the parts through [Content_Types].xml and the rels.
 */
async function* xlsxParts(result: StoredResult, maxRows: number): AsyncGenerator<ZipEntry> {
  if (!(maxRows >= 2)) throw new Error('an xlsx sheet needs room for the header and a row');
  const cursor = new RowCursor(result.batches);
  let sheets = 0;
  try {
    do {
      sheets += 1;
      yield { name: `xl/worksheets/sheet${sheets}.xml`, data: sheetXml(result.columns, cursor, maxRows - 1) };
    } while (await cursor.more());
  } finally {
    await cursor.close();
  }
  yield { name: '[Content_Types].xml', data: once(contentTypesXml(sheets)) };
  yield { name: '_rels/.rels', data: once(ROOT_RELS_XML) };
  yield { name: 'xl/workbook.xml', data: once(workbookXml(sheets)) };
  yield { name: 'xl/_rels/workbook.xml.rels', data: once(workbookRelsXml(sheets)) };
  yield { name: 'xl/styles.xml', data: once(STYLES_XML) };
}

export function xlsxStream(result: StoredResult, options: XlsxOptions = {}): AsyncGenerator<Buffer> {
  return zipStream(xlsxParts(result, options.maxRows ?? XLSX_MAX_ROWS), { zip64Above: options.zip64Above });
}

/** The download of a stored result in `format` (options apply to csv). */
export function resultStream(result: StoredResult, format: ResultFormat, options: StreamOptions = {}): AsyncGenerator<Buffer> {
  if (format === 'csv') return csvStream(result, options);
  if (format === 'json') return jsonStream(result);
  return xlsxStream(result);
}
