/**
 * Benchmark: store commits per run. Runs of a one-row query (`select 1`) with no deliveries go
 * through one `herald worker` child process (SVC_WORKER_CONCURRENCY 10 unless BENCH_CONCURRENCY
 * says), queued as the API queues them (createEnqueue + createRunQueue; support.ts
 * queueRunsAndWait, as runs.ts does). BENCH_ROUNDS rounds (default 3) of BENCH_RUNS runs
 * (default 500), each on a report of its own, after one calibration round of
 * BENCH_CALIBRATION_RUNS (default 50). Prints per round and as min/median/max the store's commits
 * per run and runs/s, and beside them the rows written per run by table and the transactions
 * per run on the queried database. Asserts nothing. About a minute with the defaults.
 *
 * How commits are counted, and why this way. The counter is pg_stat_database.xact_commit of the
 * bench's own store database, read from a connection to another database (so reading adds
 * nothing). Every transaction counts once: a statement in autocommit (a read too: postgres.js
 * sends each query outside a transaction as its own) or an explicit begin … commit; so
 * "commits" means store transactions, reads included (rollbacks are printed apart).
 * Per-statement tools are not used: pg_stat_statements needs shared_preload_libraries and
 * log_statement the server's log, i.e. a restart or configuration of a PostgreSQL that is shared
 * (here and in CI) and not the benchmark's to change. The counter is made exact thus:
 *  - A backend reports its counts at most once a second, and an idle one only on a timer that,
 *    on this PostgreSQL 15, does not fire for every pattern: a backend that ran explicit
 *    transactions was seen to keep its counts until it exited (the connector's sessions did;
 *    the outbox puts the engine's writes in explicit transactions too). pg_stat_force_next_flush()
 *    only flushes the calling backend. But a backend always reports when it exits, before it
 *    leaves pg_stat_activity. So every round is one whole worker lifetime: the counters are read,
 *    the worker starts, the runs are queued and finish, the worker stops, the bench's own
 *    connection closes, every backend of both databases is gone, and the counters are read again.
 *    The in-process API that made the connection, query and reports is stopped (its backends
 *    gone) before the first reading; the runs are enqueued without it.
 *  - What a worker's lifetime costs with few runs (start-up, its pools' first connections and
 *    their type lookups) is taken out by the calibration round: commits per run =
 *    (round's commits − calibration's commits) / (BENCH_RUNS − BENCH_CALIBRATION_RUNS), both after
 *    the bench's own statements are subtracted (counted at the client, postgres.js `debug`: one
 *    per statement, all in autocommit: queueRunsAndWait's insert, its polling every 50 ms).
 *  - The queried ("user") database is a second fresh database, so the run's own query and its
 *    connector session count there (printed apart: the connector ends its read-only transaction
 *    with a rollback, then one statement), never as store commits.
 *  - Autovacuum/autoanalyze would count too: each round prints how many ran (normally none).
 *  - The relays' passes (herald_relay_events, one statement each) are counted apart through the
 *    function statistics (track_functions = 'pl' on the bench's database, which needs a
 *    superuser; without it they are not split out), so the run engine's own commits per run are
 *    printed beside them.
 *   npx tsx scripts/bench/run-commits.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import postgres from 'postgres';
import { createEnqueue, createQueue, createRedis } from '../../src/infra/queue/queues.js';
import { createRunQueue } from '../../src/jobs/run-report-spec.js';
import { benchApi, benchPlace, median, queueRunsAndWait, sleep, spawnRole, spread, stopChildren } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALIBRATION_RUNS = Number(process.env.BENCH_CALIBRATION_RUNS ?? 50);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
/** The bench's own connections to the store, told apart in pg_stat_activity. */
const BENCH_APP = 'herald-bench';


interface Counters { commits: number; rollbacks: number; userCommits: number; userRollbacks: number }
type Tables = Map<string, { ins: number; upd: number; del: number; vacuums: number }>;
interface Lifetime { runs: number; counters: Counters; own: number; tables: Tables; relayPasses: number | null; seconds: number; statuses: string }

async function main(): Promise<void> {
  const place = await benchPlace();
  const userDb = `${place.name}_q`;
  const adminUrl = new URL(place.dbUrl); adminUrl.pathname = '/postgres';
  const stats = postgres(adminUrl.toString(), { max: 1, onnotice: () => undefined });
  await stats.unsafe(`create database ${userDb}`);
  const redis = createRedis(place.redisUrl, 'client');
  const queues = { runs: createQueue(redis, place.queuePrefix, 'runs'), mail: createQueue(redis, place.queuePrefix, 'mail'), deliveries: createQueue(redis, place.queuePrefix, 'deliveries') };
  const queue = createRunQueue(createEnqueue(queues));
  let api: Awaited<ReturnType<typeof benchApi>> | undefined;
  let worker: Awaited<ReturnType<typeof spawnRole>> | undefined;

  const counters = async (): Promise<Counters> => {
    const rows = await stats`select datname, xact_commit::float8 as c, xact_rollback::float8 as r from pg_stat_database
      where datname in (${place.name}, ${userDb})`;
    const of = (name: string) => rows.find((r) => r.datname === name)!;
    return { commits: Number(of(place.name).c), rollbacks: Number(of(place.name).r), userCommits: Number(of(userDb).c), userRollbacks: Number(of(userDb).r) };
  };
  /** Waits until no backend is left on either database (each reported its counts as it exited). */
  const allGone = async (): Promise<void> => {
    const deadline = performance.now() + 30_000;
    for (;;) {
      const [row] = await stats`select count(*)::int as n from pg_stat_activity where datname in (${place.name}, ${userDb})`;
      if (row!.n === 0) return;
      if (performance.now() > deadline) throw new Error(`${row!.n as number} backends still on the bench databases after 30 s`);
      await sleep(100);
    }
  };
  // The relays' passes (each one statement, so one commit: herald_relay_events calls) are counted
  // apart from the run engine's commits, through the function statistics (track_functions, which
  // only a superuser may turn on for the bench's database; without it they are not split out).
  const countsRelay = await stats.unsafe(`alter database ${place.name} set track_functions = 'pl'`).then(() => true, () => false);
  /** The tables' write counters and the relay's passes, read by a connection that is gone again before this answers. */
  const tables = async (): Promise<{ tables: Tables; relayPasses: number | null }> => {
    const sql = postgres(place.dbUrl.toString(), { max: 1, onnotice: () => undefined, connection: { application_name: BENCH_APP } });
    const rows = await sql`select relname, n_tup_ins::float8 as ins, n_tup_upd::float8 as upd, n_tup_del::float8 as del,
      (autovacuum_count + autoanalyze_count)::float8 as vac from pg_stat_user_tables`;
    const [relay] = await sql`select coalesce(sum(calls), 0)::float8 as n from pg_stat_user_functions where funcname = 'herald_relay_events'`;
    await sql.end();
    await allGone();
    return {
      tables: new Map(rows.map((r) => [r.relname as string, { ins: Number(r.ins), upd: Number(r.upd), del: Number(r.del), vacuums: Number(r.vac) }])),
      relayPasses: countsRelay ? Number(relay!.n) : null,
    };
  };
  /** One worker's whole lifetime with `runs` runs of the report; the counters it moved. */
  const lifetime = async (reportId: string, runs: number): Promise<Lifetime> => {
    const before = await counters();
    let own = 0;
    const sql = postgres(place.dbUrl.toString(), {
      max: 1, onnotice: () => undefined, connection: { application_name: BENCH_APP }, debug: () => { own += 1; },
    });
    worker = await spawnRole('worker', place, { SVC_WORKER_CONCURRENCY: String(CONCURRENCY) }, 'worker started');
    const { seconds, statuses } = await queueRunsAndWait(sql, (id) => queue.enqueue(id, reportId), reportId, runs, false);
    await stopChildren([worker]);
    worker = undefined;
    await sql.end();
    await allGone();
    const after = await counters();
    const moved = {
      commits: after.commits - before.commits, rollbacks: after.rollbacks - before.rollbacks,
      userCommits: after.userCommits - before.userCommits, userRollbacks: after.userRollbacks - before.userRollbacks,
    };
    return { runs, counters: moved, own, ...await tables(), seconds, statuses };
  };

  try {
    api = await benchApi(place);
    const connection = await api.post('/api/v1/connections', {
      name: 'Queried', type: 'postgres', host: place.dbUrl.hostname, port: Number(place.dbUrl.port || 5432), database: userDb,
      username: decodeURIComponent(place.dbUrl.username || 'postgres'), ssl_mode: 'disable',
    });
    const query = await api.post('/api/v1/queries', { name: 'Bench query', connection_id: connection.id, sql: 'select 1 as one' });
    const reports: string[] = [];
    for (let r = 0; r <= ROUNDS; r += 1) reports.push((await api.post('/api/v1/reports', { title: `Round ${r}`, query_id: query.id })).id);
    await api.proc.stop();
    api = undefined;
    await allGone();
    const first = await tables();
    let previousTables = first.tables;
    let previousRelay = first.relayPasses;

    console.log(`store commits per run (select 1, no deliveries, 1 worker process at concurrency ${CONCURRENCY}; ` +
      `${ROUNDS} rounds of ${RUNS} runs against a calibration round of ${CALIBRATION_RUNS}, each a whole worker lifetime)`);
    const lifetimes: Lifetime[] = [];
    for (const [i, reportId] of reports.entries()) lifetimes.push(await lifetime(reportId, i === 0 ? CALIBRATION_RUNS : RUNS));
    const [calibration, ...rounds] = lifetimes as [Lifetime, ...Lifetime[]];
    const net = (l: Lifetime) => l.counters.commits - l.own;
    const results: Array<{ perRun: number; relayPerRun: number | null; runsPerSecond: number }> = [];
    const relayOf = (l: Lifetime, before: number | null) => (l.relayPasses === null || before === null ? null : l.relayPasses - before);
    const relayMoved: Array<number | null> = [];
    for (const [i, l] of lifetimes.entries()) {
      const rows = [...l.tables].map(([name, t]) => {
        const p = previousTables.get(name) ?? { ins: 0, upd: 0, del: 0, vacuums: 0 };
        return { name, ins: t.ins - p.ins, upd: t.upd - p.upd, del: t.del - p.del, vacuums: t.vacuums - p.vacuums };
      }).filter((t) => t.ins + t.upd + t.del + t.vacuums > 0);
      previousTables = l.tables;
      relayMoved.push(relayOf(l, previousRelay));
      previousRelay = l.relayPasses;
      const vacuums = rows.reduce((n, t) => n + t.vacuums, 0);
      const written = rows.map((t) => `${t.name}${t.ins ? ` +${(t.ins / l.runs).toFixed(2)} inserted` : ''}` +
        `${t.upd ? ` ${(t.upd / l.runs).toFixed(2)} updated` : ''}${t.del ? ` ${(t.del / l.runs).toFixed(2)} deleted` : ''}`).join('; ');
      const detail = `${l.counters.commits} commits − ${l.own} the bench's own; ${l.counters.rollbacks} rollbacks; rows per run: ${written} ` +
        `(the runs' insert is the bench's, as the API's would be); autovacuum/analyze ${vacuums}; ${l.statuses}`;
      if (i === 0) {
        console.log(`  calibration (${l.runs} runs): ${detail}`);
        continue;
      }
      const span = l.runs - calibration.runs;
      const perRun = (net(l) - net(calibration)) / span;
      const userCommits = (l.counters.userCommits - calibration.counters.userCommits) / span;
      const userRollbacks = (l.counters.userRollbacks - calibration.counters.userRollbacks) / span;
      const relayRound = relayMoved[i];
      const relayCalibration = relayMoved[0];
      const relayPerRun = relayRound == null || relayCalibration == null ? null : (relayRound - relayCalibration) / span;
      results.push({ perRun, relayPerRun, runsPerSecond: l.runs / l.seconds });
      const split = relayPerRun === null ? '' : ` (the run engine's ${(perRun - relayPerRun).toFixed(2)} + the relays' ${relayPerRun.toFixed(2)} passes)`;
      console.log(`  round ${i}: ${perRun.toFixed(2)} store commits per run${split}   ${(l.runs / l.seconds).toFixed(0)} runs/s   ` +
        `(queried database: ${userCommits.toFixed(2)} commits + ${userRollbacks.toFixed(2)} rollbacks per run)`);
      console.log(`           ${detail}`);
    }
    const perRunMedian = median(results.map((r) => r.perRun));
    console.log(`  a worker's lifetime besides its runs (start, pools, stop): ~${(net(calibration) - calibration.runs * perRunMedian).toFixed(0)} commits`);
    console.log(`  store commits per run over ${rounds.length} rounds: ${spread(results.map((r) => r.perRun), 2)}`);
    if (results.every((r) => r.relayPerRun !== null)) {
      console.log(`    of which the run engine's:     ${spread(results.map((r) => r.perRun - r.relayPerRun!), 2)}`);
      console.log(`    and the relays' passes:        ${spread(results.map((r) => r.relayPerRun!), 2)}`);
    } else {
      console.log('    (the relays\' passes are not split out: track_functions needs a superuser)');
    }
    console.log(`  runs/s over ${rounds.length} rounds:                ${spread(results.map((r) => r.runsPerSecond), 0)}`);
  } finally {
    if (worker) await stopChildren([worker]);
    await api?.proc.stop();
    await Promise.all(Object.values(queues).map((q) => q.close()));
    redis.disconnect();
    await stats.unsafe(`drop database if exists ${userDb} with (force)`);
    await stats.end();
    await place.release();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
