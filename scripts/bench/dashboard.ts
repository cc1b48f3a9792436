/**
 * Benchmark: GET /api/v1/dashboard on a large instance, BENCH_REPORTS reports (default 10,000)
 * and BENCH_RUNS runs (default 1,000,000), beside two limits measured in the same run.
 *
 * Seeds a fresh database of its own with generate_series INSERTs: the reports (every tenth paused,
 * the others hourly, their next runs spread over the coming hour), the runs spread evenly over
 * the last 60 days in time order, as a running instance writes them (85 % success, 5 % skipped,
 * 5 % failed, 3 % partial, 2 % cancelled, so about 16,700 finished in the last 24 hours), each
 * report's last run, 200 pending and 50 running runs, 200 channels and 1,000 system problems of
 * which 3 are open; then VACUUM ANALYZE (autovacuum's steady state). The seed skips the foreign
 * key triggers (session_replication_role = replica, when the store's user may) because the rows
 * reference what it has just inserted; it takes about half a minute.
 *
 * Then prints the plan of the read model's one statement (EXPLAIN ANALYZE of the exact text and
 * parameters the read model sends; every scan node, and whether any is a Seq Scan on runs), and
 * min/median/max over BENCH_REQUESTS sequential requests (default 50, after 5 to warm up) of:
 * - GET /api/v1/dashboard through Herald's API role started in this process, with a read key;
 * - limit 1: the same statement alone, through its own store connection;
 * - limit 2: a bare Express app answering the same JSON bytes Herald answered;
 * - for reference, GET /health/ready (the readiness the banner asks) through Herald,
 * and the ratio of Herald's median to each limit's. Removes its database, queues and data folder
 * whatever happens. Asserts nothing.
 *   npx tsx scripts/bench/dashboard.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import type { Server } from 'node:http';
import express from 'express';
import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import * as schema from '../../src/infra/db/schema.js';
import { createDashboardReadModel } from '../../src/infra/db/stores/dashboard-read-model.js';
import { NEXT_RUNS, OPEN_PROBLEMS, RECENT_FAILURES, RUNS_WINDOW_MS } from '../../src/domain/dashboard/model.js';
import { benchApi, benchPlace, freePort, quantile } from './support.js';

const REPORTS = Number(process.env.BENCH_REPORTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50);
const WARM_UP = 5;

const ms = (n: number) => n.toFixed(2).padStart(7);

type Spread = { min: number; median: number; max: number };

/**
 * min/median/max in ms of REQUESTS sequential calls of each of `calls` (after WARM_UP rounds),
 * interleaved (one of each per round), so that all see the same moments of a shared machine.
 */
async function time<K extends string>(calls: Record<K, () => Promise<void>>): Promise<Record<K, Spread>> {
  const names = Object.keys(calls) as K[];
  const took = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < WARM_UP + REQUESTS; round += 1) {
    for (const name of names) {
      const t = performance.now();
      await calls[name]();
      if (round >= WARM_UP) took[name].push(performance.now() - t);
    }
  }
  return Object.fromEntries(names.map((n) => {
    const sorted = took[n].sort((a, b) => a - b);
    return [n, { min: sorted[0]!, median: quantile(sorted, 0.5), max: sorted[sorted.length - 1]! }];
  })) as Record<K, Spread>;
}

async function seed(store: postgres.Sql, queryId: string): Promise<void> {
  await store.begin(async (tx) => {
    // Foreign key triggers off for the seed's own rows, where the store's user may (a superuser).
    await tx`savepoint replica`;
    try {
      await tx`set local session_replication_role = replica`;
    } catch {
      await tx`rollback to savepoint replica`;
    }
    await tx`insert into reports (id, key, title, query_id, schedule_cron, schedule_timezone, paused, next_run_at)
      select gen_random_uuid(), 'report-' || g, 'Report ' || g, ${queryId}, '0 * * * *', 'UTC', g % 10 = 0,
             case when g % 10 = 0 then null else now() + (g % 3600) * interval '1 second' end
        from generate_series(1, ${REPORTS}) g`;
    // Oldest first, as an instance writes them: the runs of a day sit together in the table.
    await tx`insert into runs (id, report_id, trigger, status, deliver, slot, created_at, started_at, finished_at, updated_at,
                               row_count, error_code, error_message, steps)
      select gen_random_uuid(), rep.id, 'schedule', s.status, true, t.at, t.at, t.at + interval '1 second', t.at + interval '3 seconds',
             t.at + interval '3 seconds', case when s.status in ('success', 'partial') then 20 else 0 end,
             case when s.status = 'failed' then 'query.failed' when s.status = 'partial' then 'delivery.partial' end,
             case when s.status = 'failed' then 'relation "orders" does not exist' end,
             '[{"name":"query","status":"success","startedAt":"2026-01-01T00:00:00.000Z","finishedAt":"2026-01-01T00:00:01.000Z","error":null}]'::jsonb
        from generate_series(${RUNS}, 1, -1) g
        join (select id, row_number() over (order by id) - 1 as n from reports) rep on rep.n = g % ${REPORTS}
        cross join lateral (select now() - g * (interval '60 days' / ${RUNS}) as at) t
        cross join lateral (select case when g % 100 < 85 then 'success' when g % 100 < 90 then 'skipped'
                                        when g % 100 < 95 then 'failed' when g % 100 < 98 then 'partial' else 'cancelled' end as status) s
       order by g desc`;
    await tx`update reports r set last_run_id = (select id from runs where report_id = r.id order by created_at desc, id desc limit 1)`;
    await tx`insert into runs (id, report_id, trigger, status, created_at, updated_at)
      select gen_random_uuid(), rep.id, 'manual', case when g <= 200 then 'pending' else 'running' end, now() - g * interval '3 seconds', now()
        from generate_series(1, 250) g join (select id, row_number() over (order by id) as n from reports) rep on rep.n = g`;
    await tx`insert into channels (id, key, name, type, health)
      select gen_random_uuid(), 'channel-' || g, 'Channel ' || g, 'webhook',
             case when g % 10 = 0 then 'failing' when g % 10 = 1 then 'unknown' else 'healthy' end
        from generate_series(1, 200) g`;
    await tx`insert into system_problems (id, fingerprint, kind, severity, message, opened_at, last_seen_at, resolved_at)
      select gen_random_uuid(), 'channel.failing:' || g, 'channel.failing', case when g % 2 = 0 then 'critical' else 'warning' end,
             'Channel ' || g || ' is failing.', now() - g * interval '1 hour', now(), case when g > 3 then now() - g * interval '30 minutes' end
        from generate_series(1, 1000) g`;
  });
  await store`vacuum analyze`;
}

async function main(): Promise<void> {
  const place = await benchPlace();
  const store = postgres(place.dbUrl.toString(), { max: 1, onnotice: () => undefined });
  let api: Awaited<ReturnType<typeof benchApi>> | undefined;
  let bare: Server | undefined;
  try {
    api = await benchApi(place);
    const { queryId } = await api.selfQuery('select 1 as one');
    const { token } = await api.post('/api/v1/api-keys', { name: 'wallboard', scope: 'read' }) as unknown as { token: string };
    const t0 = performance.now();
    await seed(store, queryId);
    const [size] = await store`select pg_size_pretty(pg_total_relation_size('runs')) as runs, (select count(*)::int from runs) as n`;
    console.log(`dashboard: ${REPORTS} reports, ${size!.n as number} runs (runs with its indexes: ${size!.runs as string}), seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // The read model's statement, exactly as it sends it.
    let sent: { query: string; params: unknown[] } | undefined;
    const spy = drizzle(store, { schema, logger: { logQuery: (query, params) => { sent = { query, params }; } } });
    const now = new Date();
    const figures = await createDashboardReadModel(spy as never).figures({
      finishedAfter: new Date(now.getTime() - RUNS_WINDOW_MS), finishedBy: now,
      recentFailures: RECENT_FAILURES, nextRuns: NEXT_RUNS, openProblems: OPEN_PROBLEMS,
    });
    const { query, params } = sent!;
    const plan = (await store.unsafe(`explain (analyze, buffers) ${query}`, params as never[])).map((r) => r['QUERY PLAN'] as string);
    const scans = plan.filter((l) => /Scan|Join|Time:/.test(l)).map((l) => l.replace(/\s+\(cost=[^)]*\)/, '').trimEnd());
    console.log('  plan of the read model\'s statement (EXPLAIN ANALYZE, scan and join nodes):');
    for (const line of scans) console.log(`    ${line}`);
    // A prepared statement may be planned once for any parameters (a generic plan): check that one too.
    await store.unsafe(`prepare dashboard_figures as ${query}`);
    await store`set plan_cache_mode = force_generic_plan`;
    const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
    const generic = (await store.unsafe(`explain execute dashboard_figures(${params.map(literal).join(', ')})`)).map((r) => r['QUERY PLAN'] as string);
    await store`reset plan_cache_mode`;
    await store`deallocate dashboard_figures`;
    const seqOnRuns = (lines: string[]) => (lines.some((l) => /Seq Scan on runs\b/.test(l)) ? 'YES' : 'none');
    console.log(`  Seq Scan on runs: ${seqOnRuns(plan)} (the generic plan of the prepared statement: ${seqOnRuns(generic)})`);
    console.log(`  figures: ${figures.reports.active} active and ${figures.reports.paused} paused reports, ${Object.values(figures.runsLast24h).reduce((a, b) => a + b, 0)} runs in 24 h, `
      + `${figures.failingReports} failing reports, ${figures.queue.pending} pending, ${figures.openProblems.length} open problems`);

    const url = `${api.url}/api/v1/dashboard`;
    const headers = { Authorization: `Bearer ${token}` };
    const bytes = Buffer.from(await (await fetch(url, { headers })).arrayBuffer());
    const app = express();
    app.get('/api/v1/dashboard', (_req, res) => { res.type('application/json').send(bytes); });
    const port = await freePort();
    bare = await new Promise<Server>((resolve) => { const s = app.listen(port, '127.0.0.1', () => resolve(s)); });
    const repos = api.proc.container.repos;
    const base = api.url;
    const t = await time({
      herald: async () => {
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET /dashboard: ${res.status}`);
      },
      sqlAlone: async () => { await store.unsafe(query, params as never[]); },
      bareApp: async () => { await (await fetch(`http://127.0.0.1:${port}/api/v1/dashboard`, { headers })).arrayBuffer(); },
      inProcess: async () => {
        await repos.dashboard.figures({
          finishedAfter: new Date(Date.now() - RUNS_WINDOW_MS), finishedBy: new Date(),
          recentFailures: RECENT_FAILURES, nextRuns: NEXT_RUNS, openProblems: OPEN_PROBLEMS,
        });
      },
      ready: async () => { await (await fetch(`${base}/health/ready`)).arrayBuffer(); },
      me: async () => { await (await fetch(`${base}/api/v1/me`, { headers })).arrayBuffer(); },
    });
    const { herald, sqlAlone, bareApp, inProcess, ready, me } = t;

    const row = (label: string, x: Spread, extra = '') => console.log(`    ${label.padEnd(56)}${ms(x.min)} ${ms(x.median)} ${ms(x.max)}${extra}`);
    console.log(`  ${REQUESTS} sequential calls of each, interleaved (after ${WARM_UP} rounds to warm up), in ms:`);
    console.log(`    ${''.padEnd(56)}    min  median     max`);
    row('GET /api/v1/dashboard through Herald (read key)', herald, `   (${bytes.length} bytes)`);
    row('limit: the read model\'s statement alone', sqlAlone);
    row('limit: a bare Express app answering the same bytes', bareApp);
    row('for reference: the read model in Herald\'s process', inProcess);
    row('for reference: GET /health/ready through Herald', ready);
    row('for reference: GET /api/v1/me (read key) through Herald', me);
    console.log(`  ratio of medians: Herald / statement alone ${(herald.median / sqlAlone.median).toFixed(2)}×, `
      + `Herald / bare app ${(herald.median / bareApp.median).toFixed(1)}×; Herald − statement − bare app = `
      + `${(herald.median - sqlAlone.median - bareApp.median).toFixed(2)} ms (routing, access, the key, readiness, JSON)`);
  } finally {
    await new Promise<void>((resolve) => { if (bare) bare.close(() => resolve()); else resolve(); });
    await api?.proc.stop();
    await store.end();
    await place.release();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
