/**
 * One unit of work around several services (the ambient transaction): a `uow.run` whose work
 * calls the real services (each running its own unit of work) commits everything in one
 * transaction or nothing. The services' pool-bound reads (the report's query, the delivery's
 * report and channel) see what the earlier steps wrote; the events are numbered once, at the outer
 * commit, and published; an inner failure the work catches (a savepoint) leaves the rest intact.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { sql as rawSql } from 'drizzle-orm';
import { startHerald, type Herald } from '../support/harness.js';
import type { Actor } from '../../src/domain/audit/security-events.js';
import { ambientDb } from '../../src/infra/db/ambient.js';

let h: Herald;
let store: postgres.Sql;
const actor: Actor = { type: 'system' };

beforeAll(async () => {
  h = await startHerald();
  store = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
});
afterAll(async () => {
  await store.end();
  await h.stop();
});

const services = () => h.process.services;
const uow = () => h.process.container.uow;
const count = async (table: string, where = 'true') => (await store.unsafe(`select count(*)::int as n from ${table} where ${where}`))[0]!.n as number;
const connectionInput = (name: string) => ({ name, type: 'postgres', host: '127.0.0.1', port: 5432, database: 'nowhere', username: 'nobody', password: 'secret' });

/** Connection, query on it, report on the query, channel and a delivery of the report to it: each step reads the earlier ones. */
async function applyAll(prefix: string) {
  const s = services();
  const connection = await s.connections.create(connectionInput(`${prefix} db`), actor);
  const query = await s.queries.create({ name: `${prefix} query`, connectionId: connection.id, sql: 'select 1 as one' }, actor);
  const report = await s.reports.create({ title: `${prefix} report`, queryId: query.id }, actor);
  const channel = await s.channels.create({ name: `${prefix} hook`, type: 'webhook', settings: { url: 'https://hooks.example.com/herald' } }, actor);
  const delivery = await s.deliveries.create(report.id, { channelId: channel.id, settings: { attach: 'json' } }, actor);
  return { connection, query, report, channel, delivery };
}

it('a throw at the end of the outer work leaves nothing behind: no rows, no events, no security events', async () => {
  const eventsBefore = await count('events');
  const auditBefore = await count('security_events');
  let made: Awaited<ReturnType<typeof applyAll>> | undefined;
  await expect(uow().run(async () => {
    made = await applyAll('Rolled back');
    throw new Error('the apply fails at its end');
  })).rejects.toThrow('the apply fails at its end');
  expect(made?.delivery.id).toBeDefined(); // every step ran, and saw the earlier ones
  for (const table of ['connections', 'queries', 'query_versions', 'reports', 'channels', 'deliveries']) expect(await count(table)).toBe(0);
  expect(await count('events')).toBe(eventsBefore);
  expect(await count('security_events')).toBe(auditBefore);
});

it('without the throw, everything commits once, and the events are numbered at the outer commit and published', async () => {
  const received: string[] = [];
  const unsubscribe = await h.process.container.events.subscribe((e) => {
    if (e.type === 'report.updated') received.push(String(e.data.report_id ?? e.data.id));
  });
  const pool = ambientDb(h.process.container.db);
  const seen: Array<{ seq: number | null }> = [];
  const made = await uow().run(async () => {
    const all = await applyAll('Committed');
    // The report's event, in the outer transaction: added by the inner unit of work, neither
    // written nor numbered by it (the outer one's last statement does both).
    seen.push(...(await pool.execute<{ seq: number | null }>(rawSql`select seq from events where data->>'report_id' = ${all.report.id} or data->>'id' = ${all.report.id}`)));
    return all;
  });
  expect(seen).toEqual([]);
  // The outer run's last statement has written and numbered it, before any relay pass could.
  const rows = await store`select seq, type from events where data->>'report_id' = ${made.report.id} or data->>'id' = ${made.report.id}`;
  expect(rows).toHaveLength(1);
  expect(rows[0]!.seq).not.toBeNull();
  for (const table of ['connections', 'queries', 'reports', 'channels', 'deliveries']) expect(await count(table)).toBe(1);
  expect(await count('security_events', `type in ('connection.created', 'channel.created', 'delivery.created')`)).toBe(3);
  await waitFor(async () => (await store`select published_at from events where seq = ${rows[0]!.seq}`)[0]!.published_at !== null);
  await waitFor(async () => received.includes(made.report.id));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(received.filter((id) => id === made.report.id)).toHaveLength(1);
  await unsubscribe();
});

it('an inner failure the outer work catches (a duplicate name) is rolled back alone; the rest commits', async () => {
  const s = services();
  const { connection } = await uow().run(async () => {
    const conn = await s.connections.create(connectionInput('Savepoint db'), actor);
    await expect(s.connections.create(connectionInput('Savepoint db'), actor)).rejects.toMatchObject({ code: 'validation.failed' });
    expect(await count('connections', `name = 'Savepoint db'`)).toBe(0); // not committed yet: one transaction
    // Two at once: they take their savepoints one after the other; the refused one alone is undone.
    const [dup, ok] = await Promise.allSettled([
      s.queries.create({ name: 'Committed query', connectionId: conn.id, sql: 'select 2' }, actor),
      s.queries.create({ name: 'Savepoint query', connectionId: conn.id, sql: 'select 2' }, actor),
    ]);
    expect(dup.status).toBe('rejected');
    expect(ok.status).toBe('fulfilled');
    await s.reports.create({ title: 'Savepoint report', queryId: (ok as PromiseFulfilledResult<{ id: string }>).value.id }, actor);
    return { connection: conn };
  });
  expect((await store`select name from connections where id = ${connection.id}`).map((r) => r.name)).toEqual(['Savepoint db']);
  expect(await count('connections', `name = 'Savepoint db'`)).toBe(1);
  expect(await count('queries', `name = 'Savepoint query'`)).toBe(1);
  expect(await count('reports', `title = 'Savepoint report'`)).toBe(1);
  expect(await count('security_events', `type = 'connection.created' and details->>'name' = 'Savepoint db'`)).toBe(1);
});

it('events added while a savepoint is open go with it when it rolls back, wherever they were added; the rest are written once', async () => {
  const marker = `savepoint-events-${Date.now()}`;
  const event = (step: string) => ({ type: 'report.updated' as const, data: { id: marker, change: step } });
  await uow().run(async (outer) => {
    await outer.outbox.add([event('outer before')]);
    await expect(uow().run(async (inner) => {
      await inner.outbox.add([event('inner')]);
      // The enclosing run's outbox, by closure: its row would have gone with the savepoint too.
      await outer.outbox.add([event('outer during')]);
      throw new Error('the inner work fails');
    })).rejects.toThrow('the inner work fails');
    await uow().run(async (inner) => { await inner.outbox.add([event('inner kept')]); });
    await outer.outbox.add([event('outer after')]);
  });
  const rows = await store`select data->>'change' as change, seq from events where data->>'id' = ${marker} order by id`;
  expect(rows.map((r) => r.change)).toEqual(['outer before', 'inner kept', 'outer after']);
  for (const r of rows) expect(r.seq).not.toBeNull();
});

it('an event the store would refuse fails the nested work that adds it, not the enclosing transaction', async () => {
  const marker = `refused-event-${Date.now()}`;
  await uow().run(async (outer) => {
    await expect(uow().run(async (inner) => {
      await inner.outbox.add([{ type: 'report.updated', data: { id: marker, title: 'a\u0000b' } }]);
    })).rejects.toThrow('U+0000');
    await expect(uow().run(async (inner) => {
      await inner.outbox.add([{ type: 'report.updated', data: { id: marker }, userId: 'not a uuid' }]);
    })).rejects.toThrow('not a UUID');
    await outer.outbox.add([{ type: 'report.updated', data: { id: marker, title: 'kept' } }]);
  });
  expect((await store`select data->>'title' as title from events where data->>'id' = ${marker}`).map((r) => r.title)).toEqual(['kept']);
});

it('after an inner failure the outer work caught, a later throw still undoes every step', async () => {
  const s = services();
  await expect(uow().run(async () => {
    const conn = await s.connections.create(connectionInput('Undone db'), actor);
    await expect(s.connections.create(connectionInput('Undone db'), actor)).rejects.toMatchObject({ code: 'validation.failed' });
    await s.queries.create({ name: 'Undone query', connectionId: conn.id, sql: 'select 3' }, actor);
    throw new Error('the apply fails at its end');
  })).rejects.toThrow('the apply fails at its end');
  expect(await count('connections', `name = 'Undone db'`)).toBe(0);
  expect(await count('queries', `name = 'Undone query'`)).toBe(0);
  expect(await count('security_events', `details->>'name' = 'Undone db'`)).toBe(0);
});

it('a service outside any unit of work still reads and writes through the pool, and a run after the outer one is a transaction of its own', async () => {
  const s = services();
  const conn = await s.connections.create(connectionInput('Alone db'), actor);
  expect((await s.connections.get(conn.id)).name).toBe('Alone db');
  await expect(uow().run(async () => { await s.connections.delete(conn.id, actor); throw new Error('undo'); })).rejects.toThrow('undo');
  expect((await s.connections.get(conn.id)).name).toBe('Alone db');
  await s.connections.delete(conn.id, actor);
  await expect(s.connections.get(conn.id)).rejects.toMatchObject({ code: 'not_found' });
});

async function waitFor(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('runs what a service leaves for after its commit once the outer transaction commits, and never when it rolls back', async () => {
  const done: string[] = [];
  // Outside any run: at once.
  await uow().afterCommit(async () => { done.push('alone'); });
  expect(done).toEqual(['alone']);
  // Inside: after the outer commit, a nested run's too (its savepoint released).
  await uow().run(async () => {
    await uow().afterCommit(async () => { done.push('outer'); });
    await uow().run(async () => { await uow().afterCommit(async () => { done.push('nested'); }); });
    expect(done).toEqual(['alone']);
  });
  expect(done).toEqual(['alone', 'outer', 'nested']);
  // Rolled back: nothing of it; a nested run rolled back alone drops its own only.
  await uow().run(async () => {
    await uow().afterCommit(async () => { done.push('lost'); });
    throw new Error('rolled back');
  }).catch(() => undefined);
  await uow().run(async () => {
    await uow().run(async () => {
      await uow().afterCommit(async () => { done.push('lost too'); });
      throw new Error('savepoint rolled back');
    }).catch(() => undefined);
    await uow().afterCommit(async () => { done.push('kept'); });
  });
  expect(done).toEqual(['alone', 'outer', 'nested', 'kept']);
});

it('a report deleted inside a transaction that rolls back keeps its result files', async () => {
  const s = services();
  const { report } = await applyAll('files kept');
  const runId = '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f01';
  const key = `${report.id}/${runId}`;
  // Text that does not compress: a file of its own, past what the store keeps in its row (inline-results.ts).
  const writer = await h.process.container.artifacts.createResult(key, [{ name: 'noise', type: 'text' }]);
  await writer.write(Array.from({ length: 20 }, () => [randomBytes(2000).toString('base64')]));
  expect((await writer.finish()).inline).toBeUndefined();
  await store`insert into runs (id, report_id, trigger, status, result_key) values (${runId}, ${report.id}, 'manual', 'success', ${key})`;
  await uow().run(async () => {
    await s.reports.delete(report.id);
    throw new Error('rolled back');
  }).catch(() => undefined);
  expect(await count('reports', `id = '${report.id}'`)).toBe(1);
  expect(await h.process.container.artifacts.readResult(key)).toBeDefined();
  // Deleted for good: the file goes once the transaction commits.
  await uow().run(async () => { await s.reports.delete(report.id); });
  expect(await count('reports', `id = '${report.id}'`)).toBe(0);
  expect(await h.process.container.artifacts.readResult(key)).toBeUndefined();
});
