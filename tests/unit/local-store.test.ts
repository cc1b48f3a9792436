/**
 * The local artifact store (src/infra/artifacts/local-store.ts) on a temporary folder: a small
 * result is held in memory and written in one go at finish (no file, not even the temporary one,
 * while rows arrive), a large one goes through the gzip stream; both read back row for row, by
 * the small file's one read and by the stream, with the size reported as the file's; an aborted
 * write leaves nothing behind.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createLocalArtifactStore } from '../../src/infra/artifacts/local-store.js';
import type { CellValue } from '../../src/domain/plugins/connector.js';

let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'herald-local-store-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const columns = [{ name: 'id', type: 'int4' }, { name: 'label', type: 'text' }];
const rowsOf = (n: number, from = 0): CellValue[][] => Array.from({ length: n }, (_, i) => [from + i, `row ${from + i} ${'x'.repeat(40)}`]);
const filesIn = (folder: string): string[] => (existsSync(folder) ? readdirSync(folder) : []);

async function readBack(store: ReturnType<typeof createLocalArtifactStore>, key: string) {
  const stored = await store.readResult(key);
  if (!stored) throw new Error('not found');
  const rows: CellValue[][] = [];
  for await (const batch of stored.batches) rows.push(...batch);
  return { columns: stored.columns, rows };
}

it('holds a small result until finish, then writes it in one go; it reads back whole and its size is the file\'s', async () => {
  const store = createLocalArtifactStore(dir);
  const writer = await store.createResult('report-a/run-1', columns);
  await writer.write(rowsOf(20));
  await writer.write(rowsOf(5, 20));
  // Nothing on disk while rows arrive: no descriptor held, no temporary file.
  expect(filesIn(path.join(dir, 'results', 'report-a'))).toEqual([]);
  const { bytes } = await writer.finish();
  const file = path.join(dir, 'results', 'report-a', 'run-1.ndjson.gz');
  expect(filesIn(path.join(dir, 'results', 'report-a'))).toEqual(['run-1.ndjson.gz']);
  expect(bytes).toBe(statSync(file).size);
  const text = gunzipSync(readFileSync(file)).toString('utf8');
  expect(text.split('\n')[0]).toBe(JSON.stringify({ columns }));
  expect(await readBack(store, 'report-a/run-1')).toEqual({ columns, rows: rowsOf(25) });
});

it('streams a large result (past the small size) from the first row past it, and reads it back through the stream', async () => {
  const store = createLocalArtifactStore(dir);
  const writer = await store.createResult('report-b/run-2', columns);
  await writer.write(rowsOf(100));
  expect(filesIn(path.join(dir, 'results', 'report-b'))).toEqual([]);
  // About 60 KB of text: the writer goes to the stream, and the temporary file appears.
  await writer.write(rowsOf(900, 100));
  expect(filesIn(path.join(dir, 'results', 'report-b')).filter((f) => f.endsWith('.part'))).toHaveLength(1);
  await writer.write(rowsOf(20_000, 1000));
  const { bytes } = await writer.finish();
  const file = path.join(dir, 'results', 'report-b', 'run-2.ndjson.gz');
  expect(filesIn(path.join(dir, 'results', 'report-b'))).toEqual(['run-2.ndjson.gz']);
  expect(bytes).toBe(statSync(file).size);
  expect(bytes).toBeGreaterThan(16 * 1024); // read through the stream, not in one go
  const back = await readBack(store, 'report-b/run-2');
  expect(back.rows).toHaveLength(21_000);
  expect(back.rows).toEqual(rowsOf(21_000));
});

it('leaves nothing behind when aborted, small or streamed, and a missing result reads as none', async () => {
  const store = createLocalArtifactStore(dir);
  const small = await store.createResult('report-c/run-3', columns);
  await small.write(rowsOf(3));
  await small.abort();
  const large = await store.createResult('report-c/run-4', columns);
  await large.write(rowsOf(2000));
  await large.abort();
  expect(filesIn(path.join(dir, 'results', 'report-c'))).toEqual([]);
  expect(await store.readResult('report-c/run-3')).toBeUndefined();
});
