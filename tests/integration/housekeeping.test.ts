/**
 * Identity housekeeping on a real store: sessions and reset links dead for more than 30 days
 * are deleted; live ones, and ones dead for less, stay. The scheduler runs it at most hourly.
 */
import postgres from 'postgres';
import { randomBytes, randomUUID } from 'node:crypto';
import { createDb } from '../../src/infra/db/client.js';
import { createIdentityStore } from '../../src/infra/db/stores/identity-store.js';
import { purgeDeadIdentityRows } from '../../src/domain/sign-in/housekeeping.js';
import { hourly } from '../../src/main/scheduler.js';
import { isolate, type Isolated } from '../support/isolation.js';

let iso: Isolated;
let sql: postgres.Sql;
let store: ReturnType<typeof createDb>;
const NOW = new Date('2026-11-22T12:00:00.000Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 24 * 3600_000);
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3600_000);

beforeAll(async () => {
  iso = await isolate();
  sql = postgres(iso.databaseUrl, { max: 1, onnotice: () => undefined });
  store = createDb(iso.databaseUrl, { max: 1 });
});
afterAll(async () => {
  await sql.end();
  await store.sql.end();
  await iso.release();
});

it('deletes what has been dead for more than 30 days and keeps the rest', async () => {
  const [user] = await sql<{ id: string }[]>`
    insert into users (id, name, email, role, password_hash, must_change_password)
    values (${randomUUID()}, 'Hana', 'hana@example.com', 'viewer', 'x', false) returning id`;
  const session = async (label: string, s: { expires: Date; lastSeen: Date; revoked?: Date }) => {
    await sql`insert into sessions (id, user_id, token_hash, method, created_at, last_seen_at, expires_at, revoked_at, user_agent)
      values (${randomUUID()}, ${user!.id}, ${randomBytes(16).toString('hex')}, 'password', ${daysAgo(400)}, ${s.lastSeen}, ${s.expires}, ${s.revoked ?? null}, ${label})`;
  };
  await session('live', { expires: daysAgo(-10), lastSeen: daysAgo(0) });
  await session('revoked 10 days ago', { expires: daysAgo(-10), lastSeen: daysAgo(10), revoked: daysAgo(10) });
  await session('revoked 40 days ago', { expires: daysAgo(-10), lastSeen: daysAgo(40), revoked: daysAgo(40) });
  await session('expired 40 days ago', { expires: daysAgo(40), lastSeen: daysAgo(45) });
  await session('idle for 45 days', { expires: daysAgo(-10), lastSeen: daysAgo(45) });
  for (const [label, expires] of [['reset expired yesterday', daysAgo(1)], ['reset expired 40 days ago', daysAgo(40)]] as const) {
    await sql`insert into password_resets (id, user_id, token_hash, created_at, expires_at)
      values (${randomUUID()}, ${user!.id}, ${label}, ${daysAgo(41)}, ${expires})`;
  }

  for (const [label, expires, used] of [
    ['ticket expired an hour ago', hoursAgo(1), null], ['ticket expired two days ago', daysAgo(2), null],
    ['challenge used two days ago', daysAgo(-1), daysAgo(2)], ['flow still open', daysAgo(-1), null],
  ] as const) {
    await sql`insert into auth_flows (id, kind, token_hash, user_id, created_at, expires_at, used_at)
      values (${randomUUID()}, 'sign_in.ticket', ${label}, ${user!.id}, ${daysAgo(3)}, ${expires}, ${used})`;
  }

  const purged = await purgeDeadIdentityRows(createIdentityStore(store.db), { idleMinutes: 24 * 60 }, NOW);
  expect(purged).toEqual({ sessions: 3, passwordResets: 1, authFlows: 2 });
  const flows = await sql<{ token_hash: string }[]>`select token_hash from auth_flows order by token_hash`;
  expect(flows.map((r) => r.token_hash)).toEqual(['flow still open', 'ticket expired an hour ago']);
  const left = await sql<{ user_agent: string }[]>`select user_agent from sessions order by user_agent`;
  expect(left.map((r) => r.user_agent)).toEqual(['live', 'revoked 10 days ago']);
  const resets = await sql<{ token_hash: string }[]>`select token_hash from password_resets`;
  expect(resets.map((r) => r.token_hash)).toEqual(['reset expired yesterday']);
});

it('runs an hourly task on the first tick, then not again within the hour', async () => {
  const runs: Date[] = [];
  const task = hourly('count', async (now) => { runs.push(now); });
  await task.run(NOW);
  await task.run(new Date(NOW.getTime() + 59 * 60_000));
  await task.run(new Date(NOW.getTime() + 60 * 60_000));
  expect(runs.map((d) => d.toISOString())).toEqual([NOW.toISOString(), new Date(NOW.getTime() + 3600_000).toISOString()]);
  expect(task.essential).toBe(false);
});

it('tries a failed hourly task again after five minutes, not on every tick', async () => {
  let calls = 0;
  const task = hourly('flaky', async () => { calls += 1; throw new Error('store too slow'); });
  await expect(task.run(NOW)).rejects.toThrow('store too slow');
  await task.run(new Date(NOW.getTime() + 60_000));
  expect(calls).toBe(1);
  await expect(task.run(new Date(NOW.getTime() + 5 * 60_000))).rejects.toThrow();
  expect(calls).toBe(2);
});

it('deletes in batches: more dead rows than one batch all go', async () => {
  const [user] = await sql<{ id: string }[]>`
    insert into users (id, name, email, role, password_hash, must_change_password)
    values (${randomUUID()}, 'Bea', 'bea@example.com', 'viewer', 'x', false) returning id`;
  await sql`insert into sessions (id, user_id, token_hash, method, created_at, last_seen_at, expires_at)
    select gen_random_uuid(), ${user!.id}, md5(random()::text || g::text), 'password', ${daysAgo(400)}, ${daysAgo(60)}, ${daysAgo(50)}
    from generate_series(1, 12001) g`;
  const purged = await purgeDeadIdentityRows(createIdentityStore(store.db), { idleMinutes: 24 * 60 }, NOW);
  expect(purged.sessions).toBe(12001);
  const [left] = await sql<{ n: number }[]>`select count(*)::int as n from sessions where user_id = ${user!.id}`;
  expect(left!.n).toBe(0);
});
