/**
 * A stored result as a download that streams: csv (RFC 4180, UTF-8, header row, CRLF), json
 * ({"columns": [...], "rows": [...]}, values as openapi.yaml's ResultValue) and xlsx. Each reads
 * the stored file chunk by chunk and yields bytes as it goes, so memory does not grow with the
 * row count. Where the store hands the file's NDJSON bytes (StoredResult.lines), each format is
 * made from them without a value per cell (ndjson-bytes.ts, xlsx-bytes.ts); else from the rows'
 * values. Both give the same bytes (tests/unit/ndjson-bytes.test.ts).
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
import { cellXml, kindOf, xmlText, columnName, type CellKind } from './xlsx-cells.js';
import { xlsxRowsOfNdjson } from './xlsx-bytes.js';

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

/**
 * Rows a worksheet holds, the header included (Excel's limit: 2^20; rows past it are dropped
 * without a word when the file is opened). A longer result goes on to further sheets, each with
 * the header again.
 */
export const XLSX_MAX_ROWS = 1_048_576;

/** Where a sheet's rows come from: values or the stored bytes, taken a sheet at a time (a batch may straddle two sheets). */
interface SheetRows {
  /** Whether a row is left. */
  more(): Promise<boolean>;
  /** The XML of up to `max` rows numbered from `firstRow`, and how many rows it holds (none once every row is taken). */
  next(max: number, firstRow: number, names: readonly string[], kinds: readonly CellKind[]): Promise<{ xml: Buffer[]; rows: number }>;
  close(): Promise<void>;
}

/** Rows from the stored result's values, written cell by cell (xlsx-cells.ts). */
class RowCursor implements SheetRows {
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

  async next(max: number, firstRow: number, names: readonly string[], kinds: readonly CellKind[]): Promise<{ xml: Buffer[]; rows: number }> {
    if (!(await this.more())) return { xml: [], rows: 0 };
    const batch = this.at === 0 && this.batch.length <= max ? this.batch : this.batch.slice(this.at, this.at + max);
    this.at += batch.length;
    const xml: Buffer[] = [];
    let chunk = '';
    let r = firstRow - 1;
    for (const row of batch) {
      r += 1;
      let cells = '';
      for (let i = 0; i < row.length; i++) cells += cellXml(`${names[i]}${r}`, row[i] ?? null, kinds[i]!);
      chunk += `<row r="${r}">${cells}</row>`;
      if (chunk.length >= CHUNK) { xml.push(Buffer.from(chunk)); chunk = ''; }
    }
    if (chunk) xml.push(Buffer.from(chunk));
    return { xml, rows: batch.length };
  }

  async close(): Promise<void> { if (!this.ended) { this.ended = true; await this.source.return?.(); } }
}

const NEWLINE = 0x0a;

/** Rows from the stored file's NDJSON lines, written from their bytes (xlsx-bytes.ts). */
class LineCursor implements SheetRows {
  private chunk: Buffer = Buffer.alloc(0);
  private at = 0;
  private readonly source: AsyncIterator<Buffer>;
  private ended = false;

  constructor(lines: AsyncIterable<Buffer>) { this.source = lines[Symbol.asyncIterator](); }

  async more(): Promise<boolean> {
    for (;;) {
      while (this.at < this.chunk.length && this.chunk[this.at] === NEWLINE) this.at++;
      if (this.at < this.chunk.length || this.ended) return this.at < this.chunk.length;
      const next = await this.source.next();
      if (next.done) this.ended = true;
      else { this.chunk = next.value; this.at = 0; }
    }
  }

  async next(max: number, firstRow: number, names: readonly string[], kinds: readonly CellKind[]): Promise<{ xml: Buffer[]; rows: number }> {
    if (!(await this.more())) return { xml: [], rows: 0 };
    let end = this.at;
    for (let count = 0; count < max && end < this.chunk.length;) {
      let nl = this.chunk.indexOf(NEWLINE, end);
      if (nl === -1) nl = this.chunk.length;
      if (nl > end) count++;
      end = nl + 1;
    }
    end = Math.min(end, this.chunk.length);
    const { xml, rows } = xlsxRowsOfNdjson(this.chunk.subarray(this.at, end), names, kinds, firstRow);
    this.at = end;
    return { xml: [xml], rows };
  }

  async close(): Promise<void> { if (!this.ended) { this.ended = true; await this.source.return?.(); } }
}

/** One worksheet: the header, then at most `rows` rows from the cursor. */
async function* sheetXml(columns: ResultColumn[], cursor: SheetRows, rows: number): AsyncGenerator<Buffer> {
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
    const next = await cursor.next(last - r, r + 1, names, kinds);
    if (next.rows === 0) break;
    r += next.rows;
    for (const xml of next.xml) yield xml;
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
  const cursor: SheetRows = result.lines ? new LineCursor(result.lines) : new RowCursor(result.batches);
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
