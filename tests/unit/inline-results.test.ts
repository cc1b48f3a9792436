/**
 * Small results kept in the store (src/infra/artifacts/inline-results.ts) over the local store on
 * a temporary folder and rows kept in a map (as run_results keeps them): a small result is
 * answered inline at finish (the same gzip bytes a file would hold, and no file), a large one and
 * a small one that does not compress go to the file underneath with the rows held so far (one
 * header), both through the values path (which answers the lines it wrote) and the lines path; a
 * `db:` key reads the kept row, and removing one leaves it to the store.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createLocalArtifactStore } from '../../src/infra/artifacts/local-store.js';
import { INLINE_MAX, withInlineResults } from '../../src/infra/artifacts/inline-results.js';
import { inlineResultKeyOf, inlineRunOf } from '../../src/core/result-keys.js';
import type { ArtifactStore } from '../../src/domain/artifacts/ports.js';
import type { CellValue } from '../../src/domain/plugins/connector.js';

let dir: string;
let kept: Map<string, Buffer>;
let store: ArtifactStore;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'herald-inline-'));
  kept = new Map();
  store = withInlineResults(createLocalArtifactStore(dir), { read: async (runId) => kept.get(runId) });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const columns = [{ name: 'id', type: 'int4' }, { name: 'label', type: 'text' }];
const rowsOf = (n: number, label = (i: number) => `row ${i}`): CellValue[][] => Array.from({ length: n }, (_, i) => [i, label(i)]);
const ndjson = (rows: CellValue[][]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');
const filesIn = (folder: string): string[] => (existsSync(folder) ? readdirSync(folder) : []);

async function readBack(key: string) {
  const stored = await store.readResult(key);
  if (!stored) return undefined;
  const rows: CellValue[][] = [];
  for await (const batch of stored.batches) rows.push(...batch);
  return { columns: stored.columns, rows };
}

it('answers a small result inline at finish: the file\'s gzip bytes, and no file', async () => {
  const writer = await store.createResult('rep/run-1', columns);
  const rows = rowsOf(20);
  expect(await writer.write(rows.slice(0, 10))).toBe(ndjson(rows.slice(0, 10)));
  await writer.writeLines(Buffer.from(ndjson(rows.slice(10))));
  const done = await writer.finish();
  expect(done.inline).toBeInstanceOf(Buffer);
  expect(done.bytes).toBe(done.inline!.length);
  expect(gunzipSync(done.inline!).toString('utf8')).toBe(`${JSON.stringify({ columns })}\n${ndjson(rows)}`);
  expect(filesIn(path.join(dir, 'results', 'rep'))).toEqual([]);
  // Read under its db: key once the store keeps it (the run's end writes the row).
  const key = inlineResultKeyOf('rep/run-1');
  expect(inlineRunOf(key)).toBe('run-1');
  expect(await readBack(key)).toBeUndefined();
  kept.set('run-1', done.inline!);
  expect(await readBack(key)).toEqual({ columns, rows });
  await store.remove(key); // the row goes with the run and retention's forget, not here
  expect(kept.has('run-1')).toBe(true);
});

it('sends a large result to the file underneath with the rows held so far, one header, by either path', async () => {
  for (const [name, byLines] of [['values', false], ['lines', true]] as const) {
    const writer = await store.createResult(`rep/${name}`, columns);
    const rows = rowsOf(3000);
    let written = '';
    for (let i = 0; i < rows.length; i += 100) {
      const batch = rows.slice(i, i + 100);
      if (byLines) await writer.writeLines(Buffer.from(ndjson(batch)));
      else written += String(await writer.write(batch));
    }
    if (!byLines) expect(written).toBe(ndjson(rows));
    const done = await writer.finish();
    expect(done.inline).toBeUndefined();
    expect(filesIn(path.join(dir, 'results', 'rep'))).toContain(`${name}.ndjson.gz`);
    expect(await readBack(`rep/${name}`)).toEqual({ columns, rows });
  }
});

it('sends a small result that does not compress below the limit to a file', async () => {
  const writer = await store.createResult('rep/noise', columns);
  const rows = rowsOf(210, () => randomBytes(90).toString('base64'));
  await writer.write(rows);
  const done = await writer.finish();
  expect(ndjson(rows).length).toBeLessThan(32 * 1024);
  expect(done.bytes).toBeGreaterThan(INLINE_MAX);
  expect(done.inline).toBeUndefined();
  expect(await readBack('rep/noise')).toEqual({ columns, rows });
});

it('aborts a held result without a trace, and a large one by the file underneath', async () => {
  const small = await store.createResult('rep/a', columns);
  await small.write(rowsOf(5));
  await small.abort();
  const large = await store.createResult('rep/b', columns);
  await large.write(rowsOf(3000));
  await large.abort();
  expect(filesIn(path.join(dir, 'results', 'rep'))).toEqual([]);
});
