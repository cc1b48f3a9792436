/**
 * src/main/start-heap.ts in a node of its own (V8's flags are per process): while the process
 * starts, the young generation does not grow however much survives; settleHeap() collects and
 * lets it grow again; SVC_HEAP_SETTLE=false leaves V8's defaults (it grows during start-up).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const CHILD = `
import v8 from 'node:v8';
const { holdYoungGenerationSmall, settleHeap } = await import('./src/main/start-heap.ts');
holdYoungGenerationSmall();
const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const kept = [];
const survive = () => { for (let i = 0; i < 400000; i += 1) kept.push({ i, text: 'row ' + i }); };
const first = young();
survive();
const started = young();
settleHeap();
const settled = young();
survive();
survive();
console.log(JSON.stringify({ first, started, settled, loaded: young(), kept: kept.length }));
`;

function run(settle: 'true' | 'false'): { first: number; started: number; settled: number; loaded: number } {
  const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', SVC_HEAP_SETTLE: settle }, encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`child failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').at(-1)!) as { first: number; started: number; settled: number; loaded: number };
}

const MiB = 1048576;

it('holds the young generation at its first size while the process starts, and lets it grow once settled', () => {
  const r = run('true');
  expect(r.started).toBe(r.first);
  expect(r.settled).toBe(r.first);
  expect(r.loaded).toBeGreaterThan(r.first);
});

it('SVC_HEAP_SETTLE=false: V8 grows the young generation during start-up as it would', () => {
  const r = run('false');
  expect(r.started).toBeGreaterThan(r.first);
  expect(r.started).toBeGreaterThanOrEqual(4 * MiB);
});
