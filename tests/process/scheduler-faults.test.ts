/**
 * `herald scheduler` processes under faults: one whose clock runs 30 s ahead (libfaketime) never
 * starts a run before its due time by the store's clock; one frozen with SIGSTOP inside its claim
 * transaction gives its due reports back within seconds (the store ends its idle transaction),
 * so another scheduler runs them, and none runs twice once it thaws.
 */
import postgres from 'postgres';
import { startHerald, type Herald as InProcess } from '../support/harness.js';
import { herald, killChildren, type Herald } from '../support/child-process.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { clockOffsetEnv } from '../support/faketime.js';
import { until } from '../support/private-redis.js';

let h: InProcess;
let admin: SessionClient;
let src: PostgresSource;
let store: postgres.Sql;
let queryId: string;

beforeAll(async () => {
  h = await startHerald(); // the API only: the schedulers are child processes
  admin = await setupAdmin(h);
  src = await createPostgresSource(async () => undefined);
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  queryId = (await admin.post('/api/v1/queries').send({ name: 'One', connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id as string;
  store = postgres(h.iso.databaseUrl, { max: 3, onnotice: () => undefined });
});
afterAll(async () => {
  await killChildren();
  await store.end();
  await h.stop();
  await src.drop();
});

/** The first row of a query's answer. */
async function one<T>(rows: Promise<readonly unknown[]>): Promise<T> {
  return (await rows)[0] as T;
}

const scheduler = (extra: Record<string, string> = {}): Herald => herald(['scheduler'], {
  ...h.iso.env, SVC_LOG_LEVEL: 'info', SVC_SCHEDULER_TICK_SECONDS: '1', SVC_STORE_LOCK_SECONDS: '3', ...extra,
});

async function started(s: Herald): Promise<void> {
  await until(async () => {
    if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error(`the scheduler exited\n${s.stdout()}\n${s.stderr()}`);
    return s.stdout().includes('scheduler started');
  }, 'the scheduler to start', 60_000, 100);
}

async function stop(s: Herald): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await s.exited;
}

/** `count` reports due a minute ago (yearly, so each is due once here), made in one statement. */
async function dueReports(count: number, title: string): Promise<string[]> {
  const rows = await store<Array<{ id: string }>>`
    insert into reports (id, key, title, query_id, schedule_cron, schedule_timezone, next_run_at)
    select gen_random_uuid(), lower(${title}) || '-' || n, ${title} || ' ' || n, ${queryId}, '0 0 1 1 *', 'UTC', date_trunc('minute', now()) - interval '1 minute'
      from generate_series(1, ${count}) as n
    returning id`;
  return rows.map((r) => r.id);
}

it('a scheduler whose clock runs 30 s ahead starts no run before its due time by the store\'s clock', async () => {
  // The store's clock before the scheduler starts: its first log line can only be later (by the
  // offset, and by however long a loaded machine takes to start it).
  const [clock] = await store<Array<{ now: Date }>>`select now()`;
  const ahead = scheduler(clockOffsetEnv(30));
  await started(ahead);
  // Its own clock says 30 s later than the store's: check that the offset is real.
  await until(async () => /"timestamp":"[^"]+"/.test(ahead.stdout()), 'a log line', 10_000);
  const stamp = /"timestamp":"([^"]+)"/.exec(ahead.stdout())![1]!;
  expect(new Date(stamp).getTime() - clock!.now.getTime()).toBeGreaterThan(20_000);

  // Due 8 s from now by the store's clock (so 22 s ago by the scheduler's own).
  const [report] = await store<Array<{ id: string; due: Date }>>`
    insert into reports (id, key, title, query_id, schedule_cron, schedule_timezone, next_run_at)
    values (gen_random_uuid(), 'ahead', 'Ahead', ${queryId}, '* * * * *', 'UTC', now() + interval '8 seconds')
    returning id, next_run_at as due`;
  let seen: Date | undefined;
  await until(async () => {
    const [row] = await store<Array<{ seen: Date }>>`select clock_timestamp() as seen from runs where report_id = ${report!.id} limit 1`;
    if (row) seen = new Date(row.seen);
    return seen !== undefined;
  }, 'the scheduled run', 40_000, 100);
  expect(seen!.getTime()).toBeGreaterThanOrEqual(new Date(report!.due).getTime());
  await stop(ahead);
}, 90_000);

it('a scheduler frozen (SIGSTOP) inside its claim transaction gives its due reports back within seconds; another runs them, once each', async () => {
  const a = scheduler();
  await started(a);
  const { db } = await one<{ db: string }>(store`select current_database() as db`);
  let ids: string[] = [];
  let frozenPid: number | undefined;
  // Catch `a` inside a claim transaction, by holding it there: a lock on `runs` that its claim's
  // insert waits for (after its first statement locked the due reports). Once its backend waits,
  // `a` is stopped, then the lock let go: the insert ends and the store waits, idle in the
  // transaction, for a scheduler that cannot answer. (Watching for a claim's few milliseconds by
  // polling missed it for two minutes on a loaded machine in CI.) A wait of something else (the
  // sweep) is let go and tried again with new due reports.
  const tryUntil = Date.now() + 120_000;
  for (let attempt = 0; Date.now() < tryUntil && frozenPid === undefined; attempt += 1) {
    const holder = await store.reserve();
    let held = true;
    const letGo = async () => { if (held) { held = false; await holder`commit`; holder.release(); } };
    try {
      await holder`begin`;
      await holder`lock table runs in share mode`;
      ids = await dueReports(1500, `Frozen${attempt}`);
      const waiting = async () => (await store<Array<{ pid: number }>>`
        select pid from pg_stat_activity
         where datname = ${db} and application_name = 'herald-scheduler' and state = 'active' and wait_event_type = 'Lock'`).length > 0;
      await until(waiting, 'the scheduler\'s claim to wait for the lock on runs', 20_000, 20);
      a.child.kill('SIGSTOP');
      await letGo();
      // Frozen between statements of a claim that holds some of these due reports, and still so a
      // moment later.
      const inTransaction = () => store<Array<{ pid: number; xact: string }>>`
        select pid, xact_start::text as xact from pg_stat_activity
         where datname = ${db} and application_name = 'herald-scheduler' and state = 'idle in transaction'`;
      await new Promise((r) => setTimeout(r, 300));
      const [first] = await inTransaction();
      await new Promise((r) => setTimeout(r, 700));
      const [still] = await inTransaction();
      const { free } = await one<{ free: number }>(store`
        select count(*)::int as free from (select id from reports where id in ${store(ids)} and next_run_at <= now() for update skip locked) t`);
      const { due } = await one<{ due: number }>(store`select count(*)::int as due from reports where id in ${store(ids)} and next_run_at <= now()`);
      if (first && still && first.pid === still.pid && first.xact === still.xact && free < due) frozenPid = still.pid;
      else a.child.kill('SIGCONT');
    } finally {
      await letGo();
    }
    if (frozenPid === undefined) {
      // Missed it: let this round finish, then try again with new due reports.
      await until(async () => {
        const { left } = await one<{ left: number }>(store`select count(*)::int as left from reports where next_run_at <= now()`);
        return left === 0;
      }, 'the round to finish', 30_000, 100);
    }
  }
  expect(frozenPid).toBeDefined();
  // Another scheduler runs every one of them within seconds, not when `a` thaws.
  const b = scheduler();
  await started(b);
  await until(async () => {
    const { ran } = await one<{ ran: number }>(store`select count(distinct report_id)::int as ran from runs where report_id in ${store(ids)}`);
    return ran === ids.length;
  }, 'every due report to get its run while the other scheduler is frozen', 30_000, 200);
  // The frozen transaction's connection was ended by the store.
  const { gone } = await one<{ gone: boolean }>(store`select not exists (select 1 from pg_stat_activity where pid = ${frozenPid!}) as gone`);
  expect(gone).toBe(true);

  // Thawed, `a` carries on (its transaction is gone, nothing was made twice).
  a.child.kill('SIGCONT');
  await new Promise((r) => setTimeout(r, 3000));
  if (a.child.exitCode !== null) throw new Error(`the thawed scheduler exited\n${a.stdout().slice(-3000)}\n${a.stderr().slice(-3000)}`);
  const { runs, reports } = await one<{ runs: number; reports: number }>(store`
    select count(*)::int as runs, count(distinct report_id)::int as reports from runs where report_id in ${store(ids)}`);
  expect(runs).toBe(reports);
  expect(reports).toBe(ids.length);
  await stop(a);
  await stop(b);
}, 240_000);
