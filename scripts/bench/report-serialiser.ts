/**
 * Benchmark (issue 29, point 2): what serialising a page of 50 reports costs with JSON.stringify
 * (what Herald does) against a serialiser written by hand for the Report schema, the equivalent
 * of what fast-json-stringify would compile from the contract (known keys in a fixed order,
 * strings escaped only when they need it, no type checks). Both produce the same bytes (checked).
 * In one process, alternating, BENCH_ROUNDS rounds (default 5) of BENCH_PAGES pages each (default
 * 20,000); prints µs per page for both and the ratio. Needs nothing else running.
 *   npx tsx scripts/bench/report-serialiser.ts
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../src/generated/openapi.js';
import { median, spread } from './support.js';

type Report = components['schemas']['Report'];
type Page = components['schemas']['ReportPage'];

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PAGES = Number(process.env.BENCH_PAGES ?? 20_000);

// A page like the api-list bench's: 50 reports, schedules of a few kinds, some with a last run.
function samplePage(): Page {
  const iso = (ms: number) => new Date(ms).toISOString();
  const items: Report[] = Array.from({ length: 50 }, (_, i) => ({
    id: randomUUID(), key: `bench-report-${i}`, title: `Bench report ${i}`,
    description: 'A report of the benchmark, with a description of ordinary length.',
    query_id: randomUUID(), query_version: null, parameters: (i % 3 === 0 ? { region: 'EU', top: 10 } : {}) as Report['parameters'],
    schedule: { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' }, schedule_description: 'At 08:00, Monday through Friday (Europe/Berlin)',
    condition: i % 4 === 0 ? { type: 'rows_exist' } : null, paused: false, next_run_at: iso(1_795_000_000_000 + i * 1000),
    last_run: i % 2 === 0 ? { id: randomUUID(), status: 'success', trigger: 'schedule', created_at: iso(1_794_000_000_000), finished_at: iso(1_794_000_001_000) } : null,
    owner_id: randomUUID(), created_at: iso(1_793_000_000_000), updated_at: iso(1_793_000_000_000 + i), version: 1 + (i % 3),
  }));
  return { items, next_cursor: 'WyJiZW5jaCByZXBvcnQgNyIsIjAxOTM0YjZjLTAwMDAtNzAwMC04MDAwLTAwMDAwMDAwMDAwMCJd' };
}

// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const str = (s: string) => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`);
const strOrNull = (s: string | null | undefined) => (s === null || s === undefined ? 'null' : str(s));

function conditionJson(c: Report['condition']): string {
  if (c === null) return 'null';
  let out = `{"type":${str(c.type)}`;
  if (c.op !== undefined) out += `,"op":${str(c.op)}`;
  if (c.column !== undefined) out += `,"column":${str(c.column)}`;
  if (c.value !== undefined) out += `,"value":${JSON.stringify(c.value)}`;
  return `${out}}`;
}

function reportJson(r: Report): string {
  const run = r.last_run;
  const managed = r.managed;
  return `{"id":"${r.id}","key":${str(r.key)},"title":${str(r.title)},"description":${strOrNull(r.description)}`
    + `,"query_id":"${r.query_id}","query_version":${r.query_version === null ? 'null' : String(r.query_version)}`
    + `,"parameters":${JSON.stringify(r.parameters)}`
    + `,"schedule":${r.schedule ? `{"cron":${str(r.schedule.cron)},"timezone":${str(r.schedule.timezone)}}` : 'null'}`
    + `,"schedule_description":${strOrNull(r.schedule_description)},"condition":${conditionJson(r.condition)},"paused":${r.paused}`
    + `,"next_run_at":${strOrNull(r.next_run_at)}`
    + `,"last_run":${run ? `{"id":"${run.id}","status":"${run.status}","trigger":"${run.trigger}","created_at":"${run.created_at}","finished_at":${strOrNull(run.finished_at)}}` : 'null'}`
    + `,"owner_id":${strOrNull(r.owner_id)},"created_at":"${r.created_at}","updated_at":"${r.updated_at}","version":${r.version}`
    + `${managed ? `,"managed":{"by":"${managed.by}","path":${strOrNull(managed.path)},"detached":${managed.detached}}` : ''}}`;
}

function pageJson(p: Page): string {
  let out = '{"items":[';
  for (let i = 0; i < p.items.length; i += 1) out += (i === 0 ? '' : ',') + reportJson(p.items[i]!);
  out += ']';
  if (p.next_cursor !== undefined) out += `,"next_cursor":${str(p.next_cursor)}`;
  return `${out}}`;
}

function time(fn: () => string): number {
  let bytes = 0;
  const t = process.hrtime.bigint();
  for (let i = 0; i < PAGES; i += 1) bytes += Buffer.byteLength(fn());
  const us = Number(process.hrtime.bigint() - t) / 1000 / PAGES;
  if (bytes === 0) throw new Error('nothing written');
  return us;
}

const page = samplePage();
if (pageJson(page) !== JSON.stringify(page)) throw new Error('the hand-written serialiser does not write the same bytes');
const plain: number[] = [];
const hand: number[] = [];
time(() => JSON.stringify(page)); time(() => pageJson(page)); // warm-up
for (let r = 0; r < ROUNDS; r += 1) {
  plain.push(time(() => JSON.stringify(page)));
  hand.push(time(() => pageJson(page)));
  console.log(`round ${r + 1}: JSON.stringify ${plain[r]!.toFixed(1)} µs/page, by hand ${hand[r]!.toFixed(1)} µs/page (${(hand[r]! / plain[r]!).toFixed(2)}x)`);
}
console.log(`page of 50 reports, ${Buffer.byteLength(JSON.stringify(page))} bytes: JSON.stringify ${spread(plain, 1)} µs; by hand ${spread(hand, 1)} µs; `
  + `by hand / JSON.stringify median ${(median(hand) / median(plain)).toFixed(2)}x`);
