/**
 * The soak (issue 30, point 5): a fleet of one API, two schedulers and three workers, as separate
 * processes, on Redis under Sentinel (a primary, a replica, three sentinels) and PostgreSQL through
 * PgBouncer in transaction pooling (when this Herald has the settings for it and pgbouncer is
 * installed), driven with a steady mix of scheduled runs (reports every minute) and manual runs
 * through the API, each with a webhook delivery to a loopback receiver, while it kills and starts
 * again each process kind in turn, fails the Redis primary over (asked, then by killing it) and
 * restarts PgBouncer. Then it lets the fleet settle and reconciles the store and the receiver
 * (scripts/soak/reconcile.ts), prints the figures, and exits 1 on a loss.
 *
 *   set -a; eval "$(HERALD_DB_NAME=postgres scripts/ensure-services.sh 2>/dev/null)"; set +a
 *   npx tsx scripts/soak.ts                      # 15 minutes, the compressed run
 *   SOAK_MINUTES=3 npx tsx scripts/soak.ts       # a quick one; --minutes=240 for a long one
 *
 * Settings (environment, or --name=value with the SOAK_ left off and lower case):
 * SOAK_MINUTES (15), SOAK_REPORTS scheduled every minute (30), SOAK_MANUAL_PER_MINUTE (20),
 * SOAK_SETTLE_SECONDS longest wait for the fleet to settle (300), SOAK_PGBOUNCER auto|on|off (auto),
 * SOAK_KEEP=1 keeps the database and the folder (logs of every process) afterwards.
 * Only SVC_DATABASE_URL is read from the environment (the PostgreSQL server to use); the soak
 * makes its own database there, its own Redis servers, receiver and data folder.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { migrate } from '../src/infra/db/migrate.js';
import { createDb } from '../src/infra/db/client.js';
import { describeSettings } from '../src/infra/config/settings.js';
import { freePorts } from '../tests/support/child-process.js';
import { startSentinelSet } from '../tests/support/redis-sentinel.js';
import { pgbouncerBinary, startPgBouncer } from '../tests/support/pgbouncer.js';
import { startFleet, type Kind } from './soak/fleet.js';
import { startReceiver } from './soak/receiver.js';
import { memoryTable, reconcile } from './soak/reconcile.js';
import { createDriver } from './soak/driver.js';

const option = (name: string, fallback: string): string => {
  const flag = process.argv.find((a) => a.startsWith(`--${name}=`));
  return flag ? flag.slice(name.length + 3) : process.env[`SOAK_${name.toUpperCase().replace(/-/g, '_')}`] ?? fallback;
};
const MINUTES = Number(option('minutes', '15'));
const REPORTS = Number(option('reports', '30'));
const MANUAL_PER_MINUTE = Number(option('manual-per-minute', '20'));
const SETTLE_SECONDS = Number(option('settle-seconds', '300'));
const PGBOUNCER = option('pgbouncer', 'auto');
const KEEP = option('keep', '') === '1';

const t0 = Date.now();
const stamp = () => `${((Date.now() - t0) / 1000).toFixed(0).padStart(5)} s`;
const say = (line: string) => process.stdout.write(`${stamp()}  ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<number> {
  const base = new URL(process.env.SVC_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const adminUrl = new URL(base); adminUrl.pathname = '/postgres';
  const name = `herald_soak_${randomBytes(4).toString('hex')}`;
  const directUrl = new URL(base); directUrl.pathname = `/${name}`;
  const folder = mkdtempSync(path.join(tmpdir(), 'herald-soak-'));
  const logDir = path.join(folder, 'logs');
  mkdirSync(logDir);
  const admin = postgres(adminUrl.toString(), { max: 1, onnotice: () => undefined });
  const cleanups: Array<() => Promise<unknown>> = [];
  let failed = true;
  try {
    await admin.unsafe(`create database ${name}`);
    cleanups.push(async () => { if (!KEEP) await admin.unsafe(`drop database if exists ${name} with (force)`); });
    const { sql: migrator } = createDb(directUrl.toString(), { max: 1 });
    await migrate(migrator);
    await migrator.end();

    // The engines: Redis under Sentinel; PostgreSQL through PgBouncer when this Herald knows how.
    const sentinel = await startSentinelSet();
    cleanups.push(() => sentinel.stop());
    const known = new Set(describeSettings().map((s) => s.env));
    const canBounce = known.has('SVC_DATABASE_DIRECT_URL') && known.has('SVC_DATABASE_PREPARE') && pgbouncerBinary() !== undefined;
    if (PGBOUNCER === 'on' && !canBounce) throw new Error('SOAK_PGBOUNCER=on, but pgbouncer is not installed or this Herald has no SVC_DATABASE_DIRECT_URL / SVC_DATABASE_PREPARE');
    const bouncer = PGBOUNCER !== 'off' && canBounce ? await startPgBouncer({ upstreamPort: Number(base.port || 5432), poolSize: 10 }) : undefined;
    if (bouncer) cleanups.push(() => bouncer.stop());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());

    const [apiPort] = await freePorts(1) as [number];
    const env: Record<string, string> = {
      SVC_DATABASE_URL: bouncer ? bouncer.url(name, decodeURIComponent(base.username || 'postgres')) : directUrl.toString(),
      ...(bouncer ? { SVC_DATABASE_DIRECT_URL: directUrl.toString(), SVC_DATABASE_PREPARE: 'false' } : {}),
      SVC_REDIS_URL: sentinel.url,
      SVC_LISTEN: `127.0.0.1:${apiPort}`,
      SVC_PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
      SVC_SECRET_KEY: randomBytes(32).toString('base64'),
      SVC_DATA_DIR: path.join(folder, 'data'),
      SVC_QUEUE_PREFIX: `soak_${randomBytes(3).toString('hex')}`,
      SVC_LOG_FORMAT: 'json',
      SVC_LOG_LEVEL: 'warn',
      SVC_OUTBOUND_ALLOW: '127.0.0.1',
      SVC_WORKER_LOCK_SECONDS: '5',
      SVC_DELIVERY_BACKOFF_MS: '500',
      SVC_DELIVERY_RETRY_SCHEDULE: '5s,15s,30s',
      SVC_SHUTDOWN_TIMEOUT_SECONDS: '10',
    };
    say(`soak: ${MINUTES} min, ${REPORTS} reports every minute, ${MANUAL_PER_MINUTE} manual runs a minute; store ${bouncer ? `through PgBouncer (transaction pooling, port ${bouncer.port})` : 'direct (no PgBouncer: not installed, or this Herald has no setting for it)'}; Redis under Sentinel (${sentinel.url}); folder ${folder}`);

    const fleet = await startFleet(env, logDir, t0);
    cleanups.push(() => fleet.stop());
    await fleet.start('api', 1);
    await Promise.all([fleet.start('scheduler', 1), fleet.start('scheduler', 2)]);
    await Promise.all([fleet.start('worker', 1), fleet.start('worker', 2), fleet.start('worker', 3)]);
    say('fleet live: api-1, scheduler-1..2, worker-1..3');

    const driver = await createDriver(fleet.apiUrl, {
      connection: { host: base.hostname, port: Number(base.port || 5432), database: name, username: decodeURIComponent(base.username || 'postgres') },
      hookUrl: receiver.url, scheduled: REPORTS, manual: 5,
    });
    const store = postgres(directUrl.toString(), { max: 2, onnotice: () => undefined });
    cleanups.push(() => store.end());
    const scheduled = await store<Array<{ id: string; created_at: Date }>>`select id, created_at from reports where id = any(${driver.scheduledIds}::uuid[])`;
    say(`${scheduled.length} scheduled and ${driver.manualIds.length} manual reports, each with a webhook delivery`);

    // The API's readiness every 2 s while it drives: what a load balancer would have seen.
    const readiness = new Map<string, number>();
    let probing = true;
    const prober = (async () => {
      while (probing) {
        let seen = 'no answer';
        try {
          const res = await fetch(`${fleet.apiUrl}/health/ready`, { signal: AbortSignal.timeout(3000) });
          const body = await res.json() as { status: string; degraded?: boolean; components: Record<string, { status: string; degraded?: boolean }> };
          const off = Object.entries(body.components).filter(([, c]) => c.status !== 'ok' || c.degraded).map(([k, c]) => `${k} ${c.degraded ? 'degraded' : c.status}`);
          seen = `${res.status} ${body.status}${body.degraded ? ' degraded' : ''}${off.length ? ` (${off.join(', ')})` : ''}`;
        } catch { /* the API is away */ }
        readiness.set(seen, (readiness.get(seen) ?? 0) + 1);
        await sleep(2000);
      }
    })();

    // Drive, and meanwhile the faults, in turn, spread over 10 %–75 % of the time.
    const endAt = Date.now() + MINUTES * 60_000;
    const startedAt = Date.now();
    const manual = driver.driveManual(MANUAL_PER_MINUTE, endAt);
    let index = { worker: 0, scheduler: 0 };
    const restart = (kind: Kind, of: number, pause: number) => async () => {
      const i = kind === 'api' ? 1 : (index[kind as 'worker' | 'scheduler'] = (index[kind as 'worker' | 'scheduler'] % of) + 1);
      await fleet.killAndRestart(kind, i, pause);
      return `${kind}-${i} killed (SIGKILL), started again`;
    };
    const faults: Array<{ name: string; run: () => Promise<string> }> = [
      { name: 'a worker', run: restart('worker', 3, 3000) },
      { name: 'a scheduler', run: restart('scheduler', 2, 3000) },
      { name: 'the API', run: restart('api', 1, 2000) },
      { name: 'Redis failover', run: async () => `SENTINEL FAILOVER: primary now on ${await sentinel.failover()}` },
      ...(bouncer ? [{ name: 'PgBouncer', run: async () => { await bouncer.restart(); return 'PgBouncer killed (SIGKILL) and started again'; } }] : []),
      { name: 'Redis primary killed', run: async () => {
        const killed = await sentinel.killPrimary();
        const now = await sentinel.primaryOtherThan(killed);
        await sentinel.restart(killed);
        return `primary on ${killed} killed; sentinels promoted ${now}; ${killed} back as a replica`;
      } },
    ];
    const span = MINUTES * 60_000;
    const count = Math.max(faults.length, Math.floor((0.65 * span) / 90_000));
    const chaos: Array<{ at: number; took: number; what: string }> = [];
    index = { worker: 0, scheduler: 0 };
    for (let i = 0; i < count; i += 1) {
      const target = startedAt + span * 0.1 + (span * 0.65 * i) / Math.max(1, count - 1);
      if (target > Date.now()) await sleep(target - Date.now());
      const fault = faults[i % faults.length]!;
      const began = Date.now();
      const what = await fault.run().catch((err: Error) => `FAILED: ${err.message}`);
      chaos.push({ at: (began - t0) / 1000, took: (Date.now() - began) / 1000, what });
      say(`fault ${i + 1}/${count} (${fault.name}): ${what} in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    }
    const manualResult = await manual;
    probing = false;
    await prober;
    say(`driving done: ${manualResult.accepted.size} manual runs accepted, ${manualResult.refused} not, ${manualResult.retried} requests retried`);

    // Stop scheduling (slots due up to 20 s before the pause must have run), then settle.
    const pauseStart = (await store<Array<{ now: Date }>>`select now()`)[0]!.now;
    await driver.pauseScheduled();
    const pausedAt = (await store<Array<{ now: Date }>>`select now()`)[0]!.now;
    const requiredUntil = new Date(pauseStart.getTime() - 20_000);
    const ids = [...driver.scheduledIds, ...driver.manualIds];
    const settleStart = Date.now();
    for (;;) {
      const [open] = await store<Array<{ runs: number; attempts: number }>>`
        select (select count(*)::int from runs where report_id = any(${ids}::uuid[]) and status in ('pending', 'running')) as runs,
               (select count(*)::int from delivery_attempts a join runs r on r.id = a.run_id where r.report_id = any(${ids}::uuid[])
                  and (a.status in ('pending', 'sending', 'queued') or a.next_retry_at is not null)) as attempts`;
      if (open!.runs === 0 && open!.attempts === 0) break;
      if (Date.now() - settleStart > SETTLE_SECONDS * 1000) { say(`not settled after ${SETTLE_SECONDS} s: ${open!.runs} runs and ${open!.attempts} attempts open`); break; }
      await sleep(1000);
    }
    say(`settled in ${((Date.now() - settleStart) / 1000).toFixed(0)} s`);
    await fleet.stop();

    const checks = await reconcile(store, {
      scheduled: scheduled.map((r) => ({ id: r.id, createdAt: r.created_at })),
      manualReports: driver.manualIds,
      manualAccepted: manualResult.accepted,
      manualRefused: manualResult.refused,
      requiredUntil, pausedAt,
      received: receiver.received, refusedOnPurpose: receiver.refused,
      lives: fleet.lives, loadFrom: startedAt - t0, unexpectedExits: fleet.unexpectedExits(),
    });
    const [{ runs, per_minute }] = await store<[{ runs: number; per_minute: number }]>`
      select count(*)::int as runs, (count(*) / greatest(extract(epoch from max(finished_at) - min(created_at)) / 60, 1))::float8 as per_minute
      from runs where report_id = any(${ids}::uuid[])`;
    const out = [
      '',
      `Soak of ${MINUTES} min (${new Date(t0).toISOString()}), ${REPORTS} reports every minute + ${MANUAL_PER_MINUTE} manual runs a minute: ${runs} runs (${per_minute.toFixed(1)} a minute), ${chaos.length} faults; store ${bouncer ? 'through PgBouncer' : 'direct'}`,
      '',
      'Faults:',
      ...chaos.map((c) => `  at ${c.at.toFixed(0).padStart(5)} s (${c.took.toFixed(1)} s): ${c.what}`),
      '',
      'Readiness of the API while it drove (every 2 s):',
      ...[...readiness].sort((a, b) => b[1] - a[1]).map(([k, n]) => `  ${String(n).padStart(5)} × ${k}`),
      '',
      'Processes:',
      ...memoryTable(fleet.lives, startedAt - t0).map((l) => `  ${l}`),
      '',
      'Checks:',
      ...checks.map((c) => `  ${c.ok ? 'ok  ' : 'LOSS'}  ${c.name}: ${c.figure}`),
      '',
    ];
    process.stdout.write(out.join('\n'));
    failed = checks.some((c) => !c.ok);
    say(failed ? `LOSS: see above; every process's log is in ${logDir}` : 'soak passed');
    return failed ? 1 : 0;
  } finally {
    for (const c of cleanups.reverse()) await c().catch((err: Error) => say(`cleanup: ${err.message}`));
    await admin.end();
    if (!KEEP && !failed) rmSync(folder, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (err: Error) => {
  process.stderr.write(`soak: ${err.stack ?? err.message}\n`);
  process.exit(2);
});
