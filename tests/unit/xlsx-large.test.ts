/**
 * Large results as xlsx: past 4 GiB the zip writer writes ZIP64 records, and past Excel's row
 * limit the rows go on to a further sheet with the header again. Both limits are lowered through
 * options (writing 4 GiB or a million rows in a unit test would take minutes); the files are read
 * back by independent readers: JSZip (through exceljs), SheetJS, unzip and Python's zipfile.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import * as XLSX from 'xlsx';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { DEFLATE_LEVEL, zipStream, type ZipEntry } from '../../src/domain/results/zip.js';
import { XLSX_MAX_ROWS, xlsxStream } from '../../src/domain/results/streams.js';
import type { StoredResult } from '../../src/domain/artifacts/ports.js';
import type { CellValue } from '../../src/domain/plugins/connector.js';

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}

async function* bytes(text: string, times: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < times; i++) yield Buffer.from(text);
}

/** Offsets of a 4-byte signature in a buffer. */
function find(buf: Buffer, signature: number): number[] {
  const sig = Buffer.alloc(4);
  sig.writeUInt32LE(signature, 0);
  const at: number[] = [];
  for (let i = buf.indexOf(sig); i !== -1; i = buf.indexOf(sig, i + 1)) at.push(i);
  return at;
}

/** A stored result of `rows` rows (id, label), in batches of `batch`. */
function result(rows: number, batch = 3): StoredResult {
  async function* batches(): AsyncGenerator<CellValue[][]> {
    for (let i = 0; i < rows; i += batch) {
      yield Array.from({ length: Math.min(batch, rows - i) }, (_, j) => [i + j + 1, `row ${i + j + 1}`]);
    }
  }
  return { columns: [{ name: 'id', type: 'int4' }, { name: 'label', type: 'text' }], batches: batches() };
}

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(tmpdir(), 'herald-xlsx-large-')); });
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe('zip writer', () => {
  const entries = (): ZipEntry[] => [
    { name: 'small.txt', data: bytes('tiny', 1) },
    { name: 'big.txt', data: bytes('0123456789abcdef', 4096) }, // 64 KiB, past the lowered limit
    { name: 'after.txt', data: bytes('after the big one', 2) },
  ];

  it('deflates at zlib\'s fastest level (the deflate is most of a large download\'s CPU)', async () => {
    expect(DEFLATE_LEVEL).toBe(1);
    const text = '<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="inlineStr"><is><t>row 1</t></is></c></row>'.repeat(2000);
    const zip = await collect(zipStream([{ name: 'sheet.xml', data: bytes(text, 1) }]));
    // The one entry's data: after the local header (30 bytes and the name; the sizes follow the
    // data in a data descriptor), up to that descriptor's signature.
    const data = zip.subarray(30 + 'sheet.xml'.length, find(zip, 0x08074b50)[0]);
    expect(inflateRawSync(data).toString()).toBe(text);
    expect(data.equals(deflateRawSync(Buffer.from(text), { level: 1 }))).toBe(true);
    expect(data.equals(deflateRawSync(Buffer.from(text), { level: 6 }))).toBe(false);
  });

  it('writes plain zip (no ZIP64 record) while everything fits in 4 bytes', async () => {
    const zip = await collect(zipStream(entries()));
    expect(find(zip, 0x06064b50)).toEqual([]); // ZIP64 end of central directory
    expect(find(zip, 0x07064b50)).toEqual([]); // its locator
    const read = await JSZip.loadAsync(zip);
    expect(await read.file('big.txt')!.async('string')).toBe('0123456789abcdef'.repeat(4096));
  });

  it('writes ZIP64 records past the limit: 8-byte data descriptor, extra fields, end record and locator', async () => {
    const zip = await collect(zipStream(entries(), { zip64Above: 100 }));
    // The data descriptor of big.txt carries 8-byte sizes: 24 bytes, the next header right after.
    const descriptors = find(zip, 0x08074b50);
    expect(descriptors).toHaveLength(3);
    const bigDescriptor = descriptors[1]!;
    expect(zip.readBigUInt64LE(bigDescriptor + 16)).toBe(65536n);
    expect(zip.readUInt32LE(bigDescriptor + 24)).toBe(0x04034b50);
    // small.txt's descriptor stays 16 bytes.
    expect(zip.readUInt32LE(descriptors[0]! + 16)).toBe(0x04034b50);
    // The central directory record of big.txt: sizes 0xFFFFFFFF, the real ones in the ZIP64 extra field.
    const records = find(zip, 0x02014b50);
    expect(records).toHaveLength(3);
    const big = records[1]!;
    expect(zip.readUInt16LE(big + 6)).toBe(45);
    expect(zip.readUInt32LE(big + 20)).toBe(0xffffffff);
    expect(zip.readUInt32LE(big + 24)).toBe(0xffffffff);
    const extraAt = big + 46 + zip.readUInt16LE(big + 28);
    expect(zip.readUInt16LE(extraAt)).toBe(0x0001);
    expect(zip.readBigUInt64LE(extraAt + 4)).toBe(65536n);
    // after.txt starts past the limit: its offset is in its extra field.
    const after = records[2]!;
    expect(zip.readUInt32LE(after + 42)).toBe(0xffffffff);
    const afterExtra = after + 46 + zip.readUInt16LE(after + 28);
    const afterOffset = Number(zip.readBigUInt64LE(afterExtra + 4));
    expect(zip.readUInt32LE(afterOffset)).toBe(0x04034b50);
    // The end: ZIP64 end record, locator pointing at it, then the classic end record.
    const [end64] = find(zip, 0x06064b50);
    const [locator] = find(zip, 0x07064b50);
    expect(locator).toBe(end64! + 56);
    expect(Number(zip.readBigUInt64LE(locator! + 8))).toBe(end64);
    expect(zip.readBigUInt64LE(end64! + 32)).toBe(3n);
    expect(Number(zip.readBigUInt64LE(end64! + 48))).toBe(records[0]);
    expect(zip.length).toBe(locator! + 20 + 22);

    // Independent readers open it and get every byte back.
    const read = await JSZip.loadAsync(zip);
    expect(await read.file('big.txt')!.async('string')).toBe('0123456789abcdef'.repeat(4096));
    expect(await read.file('after.txt')!.async('string')).toBe('after the big oneafter the big one');
    const file = path.join(dir, 'zip64.zip');
    writeFileSync(file, zip);
    const unzip = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
    if (!unzip.error) expect(unzip.stdout).toContain('No errors detected');
    const python = spawnSync('python3', ['-c', [
      'import sys, zipfile',
      'z = zipfile.ZipFile(sys.argv[1])',
      'assert z.testzip() is None',
      'print(",".join(f"{i.filename}={i.file_size}" for i in z.infolist()))',
    ].join('\n'), file], { encoding: 'utf8' });
    if (!python.error) expect(python.stdout.trim()).toBe('small.txt=4,big.txt=65536,after.txt=34');
  });
});

describe('xlsx past a sheet\'s row limit', () => {
  it('keeps Excel\'s real limit: 1,048,576 rows a sheet, the header included', () => {
    expect(XLSX_MAX_ROWS).toBe(1_048_576);
  });

  it('goes on to further sheets, each with the header, no row lost or repeated (read back by exceljs and SheetJS)', async () => {
    // 4 rows a sheet: the header and 3 rows; 10 rows make 3 + 3 + 3 + 1.
    const file = await collect(xlsxStream(result(10, 4), { maxRows: 4 }));
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(file as never); // exceljs types name an older Buffer
    expect(book.worksheets.map((s) => s.name)).toEqual(['Result', 'Result 2', 'Result 3', 'Result 4']);
    const seen: unknown[] = [];
    for (const sheet of book.worksheets) {
      expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(['id', 'label']);
      expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(sheet.rowCount).toBeLessThanOrEqual(4);
      for (let r = 2; r <= sheet.rowCount; r++) seen.push((sheet.getRow(r).values as unknown[]).slice(1));
    }
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1, `row ${i + 1}`]));

    const sheetjs = XLSX.read(file, { type: 'buffer' });
    expect(sheetjs.SheetNames).toEqual(['Result', 'Result 2', 'Result 3', 'Result 4']);
    const rows = sheetjs.SheetNames.flatMap((n) => XLSX.utils.sheet_to_json<{ id: number; label: string }>(sheetjs.Sheets[n]!));
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });

  it('adds no empty sheet when the rows fill the last one exactly, and writes one sheet for no rows', async () => {
    const full = new ExcelJS.Workbook();
    await full.xlsx.load(await collect(xlsxStream(result(6, 5), { maxRows: 4 })) as never);
    expect(full.worksheets.map((s) => s.rowCount)).toEqual([4, 4]);
    const empty = new ExcelJS.Workbook();
    await empty.xlsx.load(await collect(xlsxStream(result(0), { maxRows: 4 })) as never);
    expect(empty.worksheets.map((s) => s.rowCount)).toEqual([1]);
  });

  it('opens in exceljs when the archive is written with ZIP64 records', async () => {
    const file = await collect(xlsxStream(result(10), { maxRows: 6, zip64Above: 100 }));
    expect(find(file, 0x06064b50)).toHaveLength(1);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(file as never);
    expect(book.worksheets.map((s) => s.rowCount)).toEqual([6, 6]);
    expect((book.worksheets[1]!.getRow(6).values as unknown[]).slice(1)).toEqual([10, 'row 10']);
  });
});
