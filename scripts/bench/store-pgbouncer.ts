/**
 * Benchmark: the store through PgBouncer in transaction pooling (tests/support/pgbouncer.ts,
 * Debian's pgbouncer on loopback, a pool of 10) against its limit, the same store direct with
 * named prepared statements (Herald's default), measured in the same run. The work is Herald's
 * own shape of store traffic through drizzle on createDb's client (10 connections): a unit of
 * work (BEGIN; select a run by id; update it; select its report; COMMIT) and a single select by
 * id, from BENCH_LOOPS (default 16) concurrent loops for BENCH_SECONDS (default 5) each.
 * Three set-ups alternate per round (BENCH_ROUNDS, default 3): direct prepare=true (the limit),
 * direct prepare=false (what the setting alone costs), PgBouncer prepare=false. Printed per
 * round: operations/s, p50 and p99 per set-up and the ratio to the limit; then min/median/max.
 * Asserts nothing.
 *   npx tsx scripts/bench/store-pgbouncer.ts   (needs SVC_DATABASE_URL; pgbouncer installed)
 */
import { eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { createDb } from '../../src/infra/db/client.js';
import { reports, runs } from '../../src/infra/db/schema.js';
import { startPgBouncer } from '../../tests/support/pgbouncer.js';
import { benchApi, benchPlace, quantile, spread } from './support.js';

const LOOPS = Number(process.env.BENCH_LOOPS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Figures { ops: number; p50: number; p99: number }

async function measure(url: string, prepare: boolean, runIds: string[]): Promise<Figures> {
  const { sql, db } = createDb(url, { max: 10, prepare });
  try {
    const one = async (i: number) => {
      const id = runIds[i % runIds.length]!;
      if (i % 2 === 0) {
        await db.transaction(async (tx) => {
          const [run] = await tx.select().from(runs).where(eq(runs.id, id));
          await tx.update(runs).set({ updatedAt: new Date() }).where(eq(runs.id, id));
          await tx.select().from(reports).where(eq(reports.id, run!.reportId));
        });
      } else {
        await db.select().from(runs).where(eq(runs.id, id));
      }
    };
    for (let i = 0; i < 200; i += 1) await one(i); // warm-up
    const times: number[] = [];
    const end = performance.now() + SECONDS * 1000;
    let n = 0;
    await Promise.all(Array.from({ length: LOOPS }, async () => {
      while (performance.now() < end) {
        const started = performance.now();
        await one(n++);
        times.push(performance.now() - started);
      }
    }));
    times.sort((a, b) => a - b);
    return { ops: times.length / SECONDS, p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function main(): Promise<void> {
  const place = await benchPlace();
  const bouncer = await startPgBouncer({ poolSize: 10 });
  try {
    // 200 runs of 20 reports (made through the API) to read and touch.
    const api = await benchApi(place);
    const { queryId } = await api.selfQuery('select 1 as one');
    const reportIds: string[] = [];
    for (let r = 0; r < 20; r += 1) reportIds.push((await api.post('/api/v1/reports', { title: `R${r}`, query_id: queryId })).id);
    await api.proc.stop();
    const { sql } = createDb(place.dbUrl.toString(), { max: 1 });
    const runIds: string[] = [];
    for (const reportId of reportIds) {
      for (let k = 0; k < 10; k += 1) {
        const [run] = await sql<Array<{ id: string }>>`insert into runs (id, report_id, trigger, status, created_at, updated_at) values (${randomUUID()}, ${reportId}, 'manual', 'success', now(), now()) returning id`;
        runIds.push(run!.id);
      }
    }
    await sql.end();
    const direct = place.dbUrl.toString();
    const pooled = bouncer.url(place.name);
    const ratios: { unprepared: number[]; pooled: number[] } = { unprepared: [], pooled: [] };
    const ops: Record<string, number[]> = { limit: [], unprepared: [], pooled: [] };
    for (let round = 1; round <= ROUNDS; round += 1) {
      const limit = await measure(direct, true, runIds);
      const unprepared = await measure(direct, false, runIds);
      const through = await measure(pooled, false, runIds);
      const line = (name: string, f: Figures) => `${name} ${f.ops.toFixed(0)} ops/s p50 ${f.p50.toFixed(2)} ms p99 ${f.p99.toFixed(2)} ms`;
      process.stdout.write(`round ${round}: ${line('direct prepare=true (limit)', limit)} | ${line('direct prepare=false', unprepared)} (${(unprepared.ops / limit.ops).toFixed(2)}x) | ${line('pgbouncer prepare=false', through)} (${(through.ops / limit.ops).toFixed(2)}x)\n`);
      ratios.unprepared.push(unprepared.ops / limit.ops);
      ratios.pooled.push(through.ops / limit.ops);
      ops.limit!.push(limit.ops); ops.unprepared!.push(unprepared.ops); ops.pooled!.push(through.ops);
    }
    process.stdout.write(`limit ops/s: ${spread(ops.limit!, 0)}\n`);
    process.stdout.write(`direct prepare=false: ${spread(ops.unprepared!, 0)} ops/s, ratio to the limit ${spread(ratios.unprepared, 2)}\n`);
    process.stdout.write(`pgbouncer prepare=false: ${spread(ops.pooled!, 0)} ops/s, ratio to the limit ${spread(ratios.pooled, 2)}\n`);
  } finally {
    await bouncer.stop();
    await place.release();
  }
}

void main().catch((err: unknown) => { process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`); process.exitCode = 1; });
