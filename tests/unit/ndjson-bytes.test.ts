/**
 * csv and json downloads made from the stored file's bytes (src/domain/results/ndjson-bytes.ts)
 * give the very bytes the value-by-value writers give (streams.ts), for every kind of value a
 * result holds: text with quotes, commas, line breaks, tabs, backslashes, control characters,
 * lone surrogates and non-ASCII letters, formula starts, numbers in every JSON spelling, booleans,
 * nulls, empty text and empty rows; xlsx sheets too (dates, timestamps, text that is an exact
 * number, XML's special characters, rows across sheets); and through the local store, for a
 * small file (read whole) and a large one (read through the stream, rows cut across chunks).
 */
import JSZip from 'jszip';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { csvStream, jsonStream, xlsxStream } from '../../src/domain/results/streams.js';
import { csvOfNdjson, jsonRowsOfNdjson } from '../../src/domain/results/ndjson-bytes.js';
import { exactNumberAt, serialAt } from '../../src/domain/results/xlsx-bytes.js';
import { exactNumber, serialOf } from '../../src/domain/results/xlsx-cells.js';
import { createLocalArtifactStore } from '../../src/infra/artifacts/local-store.js';
import type { StoredResult } from '../../src/domain/artifacts/ports.js';
import type { CellValue, ResultColumn } from '../../src/domain/plugins/connector.js';

const COLUMNS: ResultColumn[] = [
  { name: 'id', type: 'int4' }, { name: 'label', type: 'text' }, { name: 'amount', type: 'numeric' },
  { name: 'ok', type: 'bool' }, { name: 'note', type: 'varchar' }, { name: 'ratio', type: 'float8' },
  { name: 'day', type: 'date' }, { name: 'at', type: 'timestamptz' },
];

const TEXTS = [
  '', 'plain', 'a,b', 'say "hi"', 'line\nbreak', 'cr\rhere', 'tab\tin', '\ttab first', '\rcr first', 'back\\slash',
  'ctrl\u0001\u001f', 'lone \ud800 high', 'lone \udc00 low', 'pair 😀', 'é, ü and 漢字', '=1+1', '+x', '-y', '-5', '+1.5',
  '@SUM(A1)', '=A1,B1', '="q"', '-', '/slash/', '\\', '"', ',', 'null', 'true', '[1]', '{"a":1}', '\u2028\u2029',
  '123', '-1.50', '0.00', '12345678901234567', '1e5', '007', '<b>&amp;</b>', 'a > b', 'non\ufffechar\uffff', 'del\u007f',
];
const TIMES = [
  '2024-01-31', '1899-12-31', '1900-03-01', 'infinity', '2024-02-30x', '-0043-03-15', '2024-01-31T10:00:00Z',
  '2024-06-01T12:34:56.789+05:30', '2024-06-01 12:34:56-08', '10000-01-01', 'not a date, "quoted"',
];
const NUMBERS = [0, -0, 1, -1, 42, 1.5, -2.25, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 123456789012345680000, Number.MAX_SAFE_INTEGER];

/** Rows that cycle through every text and number in every column, with nulls and booleans. */
function rowsOf(count: number): CellValue[][] {
  const rows: CellValue[][] = [];
  for (let i = 0; i < count; i++) {
    const text = (k: number) => TEXTS[(i + k) % TEXTS.length]!;
    rows.push([
      NUMBERS[i % NUMBERS.length]!, text(0), i % 5 === 0 ? null : String(i * 1.25), i % 3 === 0 ? null : i % 2 === 0,
      i % 7 === 0 ? null : text(3), i % 4 === 0 ? text(5) : NUMBERS[(i + 3) % NUMBERS.length]!,
      i % 6 === 0 ? null : TIMES[i % TIMES.length]!, i % 9 === 0 ? i : TIMES[(i + 4) % TIMES.length]!,
    ]);
  }
  return rows;
}

const ndjson = (rows: CellValue[][]) => Buffer.from(rows.map((row) => `${JSON.stringify(row)}\n`).join(''));

async function bytesOf(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk);
  return Buffer.concat(parts);
}

function byValues(rows: CellValue[][]): StoredResult {
  return { columns: COLUMNS, batches: (async function* batches() { yield rows; })() };
}

/** The same rows as bytes, cut into chunks of whole lines of about `size` bytes. */
function byLines(rows: CellValue[][], size: number): StoredResult {
  const lines = rows.map((row) => `${JSON.stringify(row)}\n`);
  async function* chunks() {
    let chunk = '';
    for (const line of lines) {
      chunk += line;
      if (chunk.length >= size) { yield Buffer.from(chunk); chunk = ''; }
    }
    if (chunk) yield Buffer.from(chunk);
  }
  const never: AsyncIterable<CellValue[][]> = { [Symbol.asyncIterator]: () => { throw new Error('the byte path reads lines, not values'); } };
  return { columns: COLUMNS, batches: never, lines: chunks() };
}

it('makes the same csv from the bytes as from the values, plain and formula-safe, whatever the chunks', async () => {
  const rows = rowsOf(TEXTS.length * NUMBERS.length);
  for (const formulaSafe of [false, true]) {
    const expected = await bytesOf(csvStream(byValues(rows), { formulaSafe }));
    for (const size of [1, 100, 4096, 1 << 20]) {
      const got = await bytesOf(csvStream(byLines(rows, size), { formulaSafe }));
      expect([formulaSafe, size, got.toString('utf8')]).toEqual([formulaSafe, size, expected.toString('utf8')]);
      expect(got.equals(expected)).toBe(true);
    }
  }
  // The formula-safe csv did change something, and quoted something: the cases are exercised.
  const safe = (await bytesOf(csvStream(byValues(rows), { formulaSafe: true }))).toString('utf8');
  expect(safe).toContain("'=1+1");
  expect(safe).toContain('"say ""hi"""');
  expect(safe).toContain('\ufffd');
});

it('makes the same json from the bytes as from the values', async () => {
  const rows = rowsOf(TEXTS.length * 3);
  const expected = await bytesOf(jsonStream(byValues(rows)));
  for (const size of [1, 300, 1 << 20]) {
    expect((await bytesOf(jsonStream(byLines(rows, size)))).equals(expected)).toBe(true);
  }
  expect(JSON.parse(expected.toString('utf8'))).toEqual({ columns: COLUMNS, rows: JSON.parse(JSON.stringify(rows)) });
  // No rows at all: an empty array either way.
  expect((await bytesOf(jsonStream(byLines([], 10)))).toString()).toBe((await bytesOf(jsonStream(byValues([])))).toString());
});

/** Every part of an xlsx file, by name, as text. */
async function xlsxParts(result: StoredResult, maxRows?: number): Promise<Record<string, string>> {
  const zip = await JSZip.loadAsync(await bytesOf(xlsxStream(result, { maxRows })));
  const parts: Record<string, string> = {};
  for (const name of Object.keys(zip.files).sort()) parts[name] = await zip.file(name)!.async('string');
  return parts;
}

it('makes the same xlsx sheets from the bytes as from the values, across sheets, whatever the chunks', async () => {
  const rows = rowsOf(TEXTS.length * TIMES.length);
  for (const maxRows of [undefined, 7]) {
    const expected = await xlsxParts(byValues(rows), maxRows);
    for (const size of [1, 500, 1 << 20]) {
      expect(await xlsxParts(byLines(rows, size), maxRows)).toEqual(expected);
    }
  }
  // The cases are exercised: date cells, numbers from text, escaped text, U+FFFD for U+FFFE.
  const sheet = (await xlsxParts(byValues(rows)))['xl/worksheets/sheet1.xml']!;
  for (const part of [' s="2"><v>', ' s="3"><v>', '<v>-1.5</v>', '&lt;b&gt;&amp;amp;&lt;/b&gt;', 'say &quot;hi&quot;', 'non\ufffdchar\ufffd', ' t="b"><v>1</v>']) {
    expect([part, sheet.includes(part)]).toEqual([part, true]);
  }
  // An empty row is a row without cells either way.
  const empty = async (result: StoredResult) => (await xlsxParts(result))['xl/worksheets/sheet1.xml'];
  expect(await empty(byLines([[], [1]], 10))).toBe(await empty(byValues([[], [1]])));
});

it('reads an exact number from text bytes as the value code does', () => {
  const texts = ['0', '-0', '7', '007', '0.00', '-1.50', '1.', '.5', '1.2.3', '1e5', '1E+5', '-2e-3', '1e', '1e+', '1e400', '-', '--1', '+1',
    '123456789012345', '1234567890123456', '0.000000000000001234567890123456', '1234567890.12345', '1234567890.123456', '10000000000000000000',
    '12a', 'a12', '1 ', ' 1', '1,5', '١٢', ''];
  for (const text of texts) {
    const bytes = Buffer.from(`"${text}"`);
    expect([text, exactNumberAt(bytes, 1, bytes.length - 1)]).toEqual([text, exactNumber(text)]);
  }
  expect(exactNumberAt(Buffer.from('"-1.50"'), 1, 6)).toBe(-1.5);
});

it('reads the common date and timestamp forms from text bytes as the value code does, and leaves the rest to it', () => {
  const handled = ['2024-01-31', '1900-01-01', '9999-12-31', '2024-02-30', '2024-01-31T10:00:00Z', '2024-01-31 10:00:00', '2024-01-31T10:00:00.5Z',
    '2024-01-31T10:00:00.123456Z', '2024-01-31T23:59:59.9995'];
  for (const text of handled) {
    const bytes = Buffer.from(text);
    const serial = serialAt(bytes, 0, bytes.length);
    expect([text, serial]).toEqual([text, serialOf(text, 'datetime')]);
    expect(serial).toBe(serialOf(text, 'date'));
  }
  // Left to the value code: offsets, infinities, other years, other shapes, not dates.
  for (const text of ['2024-01-31T10:00:00+05:30', '2024-01-31T10:00:00-08', '2024-01-31Z', 'infinity', '1899-12-31', '10000-01-01', '-0043-03-15',
    '2024-01-31T10:00', '2024-01-31T10:00:00.', '2024-1-31', '2024-01-31x', 'not a date', '']) {
    const bytes = Buffer.from(text);
    expect([text, serialAt(bytes, 0, bytes.length)]).toEqual([text, undefined]);
  }
});

it('writes an empty row as an empty line, skips blank lines, and refuses what is not a row', () => {
  expect(csvOfNdjson(Buffer.from('[]\n\n[1,null,"a"]\n')).toString()).toBe('\r\n1,,a\r\n');
  expect(jsonRowsOfNdjson(Buffer.from('[1]\n\n[2]\n'), true)).toEqual({ bytes: Buffer.from('[1],[2]'), first: false });
  expect(jsonRowsOfNdjson(Buffer.from('[3]\n'), false).bytes.toString()).toBe(',[3]');
  for (const bad of ['{"a":1}\n', '[1,2\n', '[1,2\n[3]\n', '["open\n', '["open\n[3]\n']) expect(() => csvOfNdjson(Buffer.from(bad))).toThrow('not a JSON array');
});

describe('through the local store', () => {
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(path.join(tmpdir(), 'herald-ndjson-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([['small (read whole)', 40], ['large (read through the stream)', 20_000]])('gives the same downloads from a %s file', async (_name, count) => {
    const store = createLocalArtifactStore(dir);
    const rows = rowsOf(count);
    const writer = await store.createResult(`r/${count}`, COLUMNS);
    for (let i = 0; i < rows.length; i += 1000) await writer.write(rows.slice(i, i + 1000));
    await writer.finish();
    for (const formulaSafe of [false, true]) {
      const stored = (await store.readResult(`r/${count}`))!;
      expect(stored.lines).toBeDefined();
      expect((await bytesOf(csvStream(stored, { formulaSafe }))).equals(await bytesOf(csvStream(byValues(rows), { formulaSafe })))).toBe(true);
    }
    const stored = (await store.readResult(`r/${count}`))!;
    expect((await bytesOf(jsonStream(stored))).equals(await bytesOf(jsonStream(byValues(rows))))).toBe(true);
    expect(await xlsxParts((await store.readResult(`r/${count}`))!, 1000)).toEqual(await xlsxParts(byValues(rows), 1000));
    // The values are read back as they were written.
    const again = (await store.readResult(`r/${count}`))!;
    const back: CellValue[][] = [];
    for await (const batch of again.batches) back.push(...batch);
    expect(back).toEqual(JSON.parse(JSON.stringify(rows)));
    expect(ndjson(back).length).toBeGreaterThan(0);
  });
});
