/**
 * Benchmark, end to end first: a table of 1,000,000 rows x 10 mixed columns in PostgreSQL; the
 * limit is psql's COPY of the same rows as csv (`\copy (select * from bench_rows) to stdout`,
 * output to /dev/null), measured in the same run. Herald: the run (a worker child process; the
 * run's started → finished, query to stored file; two runs, the faster counts, as for COPY), the csv and xlsx downloads through an API child
 * process (GET /api/v1/runs/{id}/result, body read to the end), the API's resident memory idle and
 * at its peak during each download (/proc/<pid>/status VmRSS sampled every 10 ms), and the same
 * for 2,000,000 rows (the table twice); the xlsx download (of the 1M run) comes last, after both
 * csv downloads. Ratios are Herald / COPY, and the 2M csv peak / the 1M csv peak.
 *
 * Then, file steps: a 1,000,000-row, ten-column result (mixed: integers, text, decimals, big integers,
 * dates, timestamps, booleans, nulls) written to the stored file, then served as csv, json and
 * xlsx, each in a fresh child process so that its peak resident memory (maxRSS) is its own.
 * For xlsx it also measures SheetJS (xlsx 0.18.5, whole workbook in memory) and exceljs's
 * streaming WorkbookWriter, on the same rows. The serving steps read the stored file and write
 * the bytes to /dev/null, which is what GET /runs/{runId}/result does minus the socket.
 * Prints figures; asserts nothing.
 *   npx tsx scripts/bench/result-files.ts            (BENCH_ROWS to change the row count)
 * BENCH_E2E=0 skips the end-to-end part, BENCH_FILES=0 the file steps; BENCH_LIBRARIES=1 adds the
 * exceljs and SheetJS steps (slow, GiBs of memory).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { createLocalArtifactStore } from '../../src/infra/artifacts/local-store.js';
import { resultStream } from '../../src/domain/results/streams.js';
import type { CellValue } from '../../src/domain/plugins/connector.js';
import postgres from 'postgres';
import { benchPlace, freePort, spawnRole, stopChildren, type BenchPlace } from './support.js';

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


// ---- end to end: PostgreSQL → run → stored file → download, against psql COPY ----

const E2E_SQL = (rows: number) => `create table bench_rows as
select g as id, 'item ' || g as label, ((g * 7) % 100000 + (g % 100) / 100.0)::numeric(12,2) as amount,
       9007199254740993 + g::bigint as big, date '2010-01-01' + (g % 5000) as day,
       timestamptz '2023-11-14 22:13:20+00' + g * interval '1 second' as at, g % 3 = 0 as ok,
       case when g % 5 = 0 then null else 'a, "quoted" note' end as note, g / 7.0::float8 as ratio,
       ('C' || g % 1000)::varchar(8) as code
  from generate_series(1, ${rows}) g`;

const MiB = 1048576;
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;

/**
 * How the API child runs: the built JavaScript (dist/, `npm run build` or `npx tsc -p
 * tsconfig.build.json`) when there is one, as in production (tsx's compiler adds ~130 MiB to a
 * process's memory); otherwise through tsx.
 */
const BUILT = existsSync(fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url)));
const API_ENTRY = BUILT ? ['dist/src/cli.js'] : ['--import', 'tsx', 'src/cli.ts'];

/** `herald api` as a child process; resolves once it listens. */
async function spawnApi(place: BenchPlace, port: number): Promise<ChildProcess> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn(process.execPath, [...API_ENTRY, 'api'], {
    cwd: root, env: { ...place.env, PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'info', SVC_LISTEN: `127.0.0.1:${port}`, ...(process.env.SVC_HEAP_SETTLE ? { SVC_HEAP_SETTLE: process.env.SVC_HEAP_SETTLE } : {}) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (b: Buffer) => { seen += b.toString('utf8'); if (seen.includes('api listening')) { seen = ''; resolve(); } if (seen.length > 1e5) seen = seen.slice(-1000); });
    child.once('exit', (code) => reject(new Error(`herald api exited (${code})`)));
  });
  return child;
}

/** psql's COPY of a query as csv to /dev/null: seconds. */
function copySeconds(place: BenchPlace, select: string): number {
  const t0 = performance.now();
  const r = spawnSync('sh', ['-c', `psql -X -q "$1" -c "\\copy (${select}) to stdout with (format csv, header)" > /dev/null`, 'sh', place.dbUrl.toString()], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('psql COPY failed');
  return (performance.now() - t0) / 1000;
}

/** A download's time, bytes, and the API's RSS at its peak and just before it. */
interface Download { seconds: number; bytes: number; peak: number; before: number }

/** Downloads to the end, sampling the API's RSS meanwhile. */
async function download(url: string, cookie: string, pid: number): Promise<Download> {
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, rssOf(pid)); }, 10);
  const t0 = performance.now();
  const res = await fetch(url, { headers: { Cookie: cookie } });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body! as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  return { seconds, bytes, peak, before };
}

async function endToEnd(): Promise<void> {
  const place = await benchPlace();
  const store = postgres(place.dbUrl.toString(), { max: 2, onnotice: () => undefined });
  const children: ChildProcess[] = [];
  try {
    await store.unsafe(E2E_SQL(ROWS));
    await store.unsafe('analyze bench_rows');
    const port = await freePort();
    const api = await spawnApi(place, port);
    children.push(api);
    const base = `http://127.0.0.1:${port}`;
    const setup = await fetch(`${base}/api/v1/setup`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password: 'a long bench password' }),
    });
    const cookie = setup.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = ((await setup.json()) as { csrf_token: string }).csrf_token;
    const post = async (p: string, body: unknown, status = 201): Promise<{ id: string }> => {
      const res = await fetch(`${base}${p}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie, 'X-CSRF-Token': csrf }, body: JSON.stringify(body) });
      if (res.status !== status) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string };
    };
    const connection = await post('/api/v1/connections', {
      name: 'Self', type: 'postgres', host: place.dbUrl.hostname, port: Number(place.dbUrl.port || 5432), database: place.name,
      username: decodeURIComponent(place.dbUrl.username || 'postgres'), ssl_mode: 'disable',
    });
    children.push(await spawnRole('worker', place, {}, 'worker started'));
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssOf(api.pid!);
    console.log(`end to end: ${ROWS.toLocaleString('en')} rows × 10 mixed columns in PostgreSQL; API (${BUILT ? 'built, dist/' : 'through tsx: no dist/'}) and worker in child processes`);
    console.log(`  API idle RSS ${(idle / MiB).toFixed(0)} MiB (after start-up and sign-in)`);
    const peaks: number[] = [];
    let firstRun = '';
    for (const [times, select] of [[1, 'select * from bench_rows'], [2, 'select * from bench_rows union all select * from bench_rows']] as const) {
      const rows = (ROWS * times).toLocaleString('en');
      const query = await post('/api/v1/queries', { name: `Bench ${times}`, connection_id: connection.id, sql: select });
      const report = await post('/api/v1/reports', { title: `Bench ${times}`, query_id: query.id });
      const copy = copySeconds(place, select);
      // Herald's run, like the limit, is measured twice and the faster counts: the first run of
      // a fresh worker also pays for compiling its code paths.
      const runIds: string[] = [];
      const runTimes: number[] = [];
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const run = await post(`/api/v1/reports/${report.id}/run`, { deliver: false }, 202);
        let status = 'pending';
        let runSeconds = NaN;
        while (status === 'pending' || status === 'running') {
          await new Promise((r) => setTimeout(r, 50));
          const [row] = await store`select status, extract(epoch from finished_at - started_at)::float8 as s from runs where id = ${run.id}`;
          status = row!.status as string;
          runSeconds = Number(row!.s);
        }
        if (status !== 'success') throw new Error(`run ${run.id}: ${status}`);
        runIds.push(run.id);
        runTimes.push(runSeconds);
      }
      const run = { id: runIds[0]! };
      const runSeconds = Math.min(...runTimes);
      const copyAfter = copySeconds(place, select);
      const limit = Math.min(copy, copyAfter);
      console.log(`  ${rows} rows: psql COPY csv ${copy.toFixed(2)} s / ${copyAfter.toFixed(2)} s (limit: the faster, ${limit.toFixed(2)} s)`);
      console.log(`    run (query → stored file)   ${runSeconds.toFixed(2).padStart(6)} s   ${(runSeconds / limit).toFixed(2)}x COPY   (runs ${runTimes.map((t) => `${t.toFixed(2)} s`).join(' / ')}: the faster)`);
      const csv = await download(`${base}/api/v1/runs/${run.id}/result?format=csv`, cookie, api.pid!);
      peaks.push(csv.peak);
      console.log(`    csv download               ${csv.seconds.toFixed(2).padStart(6)} s   ${(csv.seconds / limit).toFixed(2)}x COPY   API peak RSS ${(csv.peak / MiB).toFixed(0)} MiB (idle + ${((csv.peak - idle) / MiB).toFixed(0)}; ${(csv.before / MiB).toFixed(0)} MiB just before)   ${(csv.bytes / 1e6).toFixed(1)} MB`);
      if (times === 1) firstRun = run.id;
    }
    // The xlsx download comes after both csv downloads, so that neither csv peak starts from
    // what the xlsx's larger heap left behind (V8 and malloc keep freed pages for a while).
    const xlsx = await download(`${base}/api/v1/runs/${firstRun}/result?format=xlsx`, cookie, api.pid!);
    console.log(`  ${ROWS.toLocaleString('en')} rows as xlsx: download ${xlsx.seconds.toFixed(2)} s   API peak RSS ${(xlsx.peak / MiB).toFixed(0)} MiB (idle + ${((xlsx.peak - idle) / MiB).toFixed(0)}; ${(xlsx.before / MiB).toFixed(0)} MiB just before)   ${(xlsx.bytes / 1e6).toFixed(1)} MB`);
    console.log(`  API csv download peak, 2M / 1M: ${(peaks[1]! / peaks[0]!).toFixed(3)}x`);
  } finally {
    await stopChildren(children);
    await store.end();
    await place.release();
  }
}

async function main(): Promise<void> {
  const [childMode, childDir] = process.argv.slice(2);
  if (childMode && childDir) {
    const t0 = performance.now();
    const what = await step(childMode, childDir);
    const seconds = (performance.now() - t0) / 1000;
    const usage = process.resourceUsage();
    console.log(JSON.stringify({ mode: childMode, seconds, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6, maxRssMb: usage.maxRSS / 1024, what }));
    return;
  }
  if (process.env.BENCH_E2E !== '0') await endToEnd();
  if (process.env.BENCH_FILES === '0') return;
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-bench-results-'));
  const self = fileURLToPath(import.meta.url);
  try {
    console.log(`result files: ${ROWS.toLocaleString('en')} rows × ${COLUMNS.length} mixed columns (each step in its own process)`);
    const libraries = process.env.BENCH_LIBRARIES === '1' ? ['exceljs', 'sheetjs'] : [];
    for (const mode of ['write', 'csv', 'json', 'xlsx', ...libraries]) {
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--max-old-space-size=8192', self, mode, dir], { encoding: 'utf8', maxBuffer: 1e8, timeout: LIMIT_MS });
      const line = child.stdout.trim().split('\n').pop() ?? '';
      try {
        const r = JSON.parse(line) as { seconds: number; cpuSeconds: number; maxRssMb: number; what: string };
        const label = { write: 'write the stored file (gzip NDJSON)', csv: 'serve csv', json: 'serve json', xlsx: 'serve xlsx (Herald\'s streaming writer)', exceljs: 'xlsx with exceljs WorkbookWriter (streaming)', sheetjs: 'xlsx with SheetJS 0.18.5 (in memory)' }[mode];
        console.log(`  ${label!.padEnd(46)} ${r.seconds.toFixed(1).padStart(6)} s (CPU ${r.cpuSeconds.toFixed(1).padStart(5)} s)   peak RSS ${r.maxRssMb.toFixed(0).padStart(5)} MiB   ${r.what}`);
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
