/**
 * Benchmark: a 1,000,000-row, ten-column result (mixed: integers, text, decimals, big integers,
 * dates, timestamps, booleans, nulls) written to the stored file, then served as csv, json and
 * xlsx, each in a fresh child process so that its peak resident memory (maxRSS) is its own.
 * For xlsx it also measures SheetJS (xlsx 0.18.5, whole workbook in memory) and exceljs's
 * streaming WorkbookWriter, on the same rows. The serving steps read the stored file and write
 * the bytes to /dev/null, which is what GET /runs/{runId}/result does minus the socket.
 * Prints figures; asserts nothing.
 *   npx tsx scripts/bench/result-files.ts            (BENCH_ROWS to change the row count)
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { createLocalArtifactStore } from '../../src/infra/artifacts/local-store.js';
import { resultStream } from '../../src/domain/results/streams.js';
import type { CellValue } from '../../src/domain/plugins/connector.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const KEY = 'bench/result';
/** Longest a step may take (SheetJS on a million rows may not finish). */
const LIMIT_MS = Number(process.env.BENCH_STEP_SECONDS ?? 300) * 1000;
const COLUMNS = [
  { name: 'id', type: 'int4' }, { name: 'label', type: 'text' }, { name: 'amount', type: 'numeric' }, { name: 'big', type: 'int8' },
  { name: 'day', type: 'date' }, { name: 'at', type: 'timestamptz' }, { name: 'ok', type: 'bool' }, { name: 'note', type: 'text' },
  { name: 'ratio', type: 'float8' }, { name: 'code', type: 'varchar' },
];

function row(i: number): CellValue[] {
  return [
    i, `item ${i}`, `${(i * 7) % 100000}.${String(i % 100).padStart(2, '0')}`, String(9007199254740993n + BigInt(i)),
    `20${String(10 + (i % 15)).padStart(2, '0')}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
    new Date(1_700_000_000_000 + i * 1000).toISOString(), i % 3 === 0, i % 5 === 0 ? null : 'a, "quoted" note', i / 7, `C${i % 1000}`,
  ];
}

async function* rowsInBatches(): AsyncGenerator<CellValue[][]> {
  for (let i = 0; i < ROWS; i += 1000) {
    const batch: CellValue[][] = [];
    for (let j = i; j < Math.min(ROWS, i + 1000); j++) batch.push(row(j));
    yield batch;
  }
}

async function toNull(chunks: AsyncIterable<Buffer>): Promise<number> {
  const out = createWriteStream('/dev/null');
  let bytes = 0;
  for await (const c of chunks) { bytes += c.length; if (!out.write(c)) await once(out, 'drain'); }
  out.end();
  return bytes;
}

async function step(mode: string, dir: string): Promise<string> {
  const store = createLocalArtifactStore(dir);
  if (mode === 'write') {
    const writer = await store.createResult(KEY, COLUMNS);
    for await (const batch of rowsInBatches()) await writer.write(batch);
    const { bytes } = await writer.finish();
    return `${(bytes / 1e6).toFixed(1)} MB stored`;
  }
  if (mode === 'csv' || mode === 'json' || mode === 'xlsx') {
    const stored = (await store.readResult(KEY))!;
    return `${((await toNull(resultStream(stored, mode))) / 1e6).toFixed(1)} MB`;
  }
  if (mode === 'sheetjs') {
    const XLSX = await import('xlsx');
    const stored = (await store.readResult(KEY))!;
    const aoa: CellValue[][] = [COLUMNS.map((c) => c.name)];
    for await (const batch of stored.batches) for (const r of batch) aoa.push(r);
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(aoa), 'Result');
    const buf = XLSX.write(book, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
    return `${(buf.length / 1e6).toFixed(1)} MB`;
  }
  if (mode === 'exceljs') {
    const ExcelJS = (await import('exceljs')).default;
    const stored = (await store.readResult(KEY))!;
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: createWriteStream('/dev/null'), useSharedStrings: false, useStyles: false });
    const sheet = book.addWorksheet('Result');
    sheet.addRow(COLUMNS.map((c) => c.name)).commit();
    for await (const batch of stored.batches) for (const r of batch) sheet.addRow(r).commit();
    sheet.commit();
    await book.commit();
    return 'written';
  }
  throw new Error(`unknown mode ${mode}`);
}

async function main(): Promise<void> {
  const [childMode, childDir] = process.argv.slice(2);
  if (childMode && childDir) {
    const t0 = performance.now();
    const what = await step(childMode, childDir);
    const seconds = (performance.now() - t0) / 1000;
    console.log(JSON.stringify({ mode: childMode, seconds, maxRssMb: process.resourceUsage().maxRSS / 1024, what }));
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-bench-results-'));
  const self = fileURLToPath(import.meta.url);
  try {
    console.log(`result files: ${ROWS.toLocaleString('en')} rows × ${COLUMNS.length} mixed columns (each step in its own process)`);
    for (const mode of ['write', 'csv', 'json', 'xlsx', 'exceljs', 'sheetjs']) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--max-old-space-size=8192', self, mode, dir], { encoding: 'utf8', maxBuffer: 1e8, timeout: LIMIT_MS });
      const line = child.stdout.trim().split('\n').pop() ?? '';
      try {
        const r = JSON.parse(line) as { seconds: number; maxRssMb: number; what: string };
        const label = { write: 'write the stored file (gzip NDJSON)', csv: 'serve csv', json: 'serve json', xlsx: 'serve xlsx (Herald\'s streaming writer)', exceljs: 'xlsx with exceljs WorkbookWriter (streaming)', sheetjs: 'xlsx with SheetJS 0.18.5 (in memory)' }[mode];
        console.log(`  ${label!.padEnd(46)} ${r.seconds.toFixed(1).padStart(6)} s   peak RSS ${r.maxRssMb.toFixed(0).padStart(5)} MiB   ${r.what}`);
      } catch {
        const why = child.signal === 'SIGTERM' ? `did not finish within ${LIMIT_MS / 1000} s` : `failed (exit ${String(child.status)}, ${String(child.signal)})`;
        console.log(`  ${mode}: ${why} ${(child.stderr ?? '').split('\n').slice(-3).join(' ')}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
