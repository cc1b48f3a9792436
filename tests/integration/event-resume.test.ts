/**
 * The event stream resumes: events are outbox rows numbered in the store, so a client that
 * disconnects and reconnects with Last-Event-ID, to the same or another API process, gets exactly
 * the events it missed, in order, once, then the live ones; past the retention window it gets a
 * reset. Events written while Redis is down arrive all the same.
 */
import { sql as sql_ } from 'drizzle-orm';
import { startHerald, type Herald } from '../support/harness.js';
import { isolate, type Isolated } from '../support/isolation.js';
import { createKey, createSignedInUser, setupAdmin, keyClient, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { openSse, serve, type SseEvent } from '../support/sse.js';
import { privateRedis, type PrivateRedis } from '../support/private-redis.js';
import type { HttpClient } from '../support/harness.js';
import { createEventLog, outboxRepo } from '../../src/infra/db/stores/events-repo.js';
import { createDb } from '../../src/infra/db/client.js';
import { createUnitOfWork, txReposOf } from '../../src/infra/db/unit-of-work.js';

let src: PostgresSource;
beforeAll(async () => { src = await createPostgresSource(async () => undefined); });
afterAll(async () => { await src.drop(); });

/** An admin key's client and a query to make reports of. */
async function prepare(h: Herald): Promise<{ api: HttpClient; token: string; queryId: string; admin: SessionClient }> {
  const admin = await setupAdmin(h);
  const { token } = await createKey(admin, { name: 'pipeline', scope: 'admin' });
  const api = keyClient(h, token);
  const connectionId = (await api.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  const queryId = (await api.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id as string;
  return { api, token, queryId, admin };
}

const reportEvents = (events: SseEvent[], ids: Set<string>) =>
  events.filter((e) => e.event === 'report.updated' && ids.has(e.data.id as string)).map((e) => `${e.data.id as string}:${e.data.change as string}`);

describe('two API processes on one store', () => {
  let iso: Isolated;
  let a: Herald;
  let b: Herald;
  let api: HttpClient;
  let token: string;
  let queryId: string;
  let admin: SessionClient;
  beforeAll(async () => {
    iso = await isolate();
    a = await startHerald({ iso });
    b = await startHerald({ iso });
    ({ api, token, queryId, admin } = await prepare(a));
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
    await iso.release();
  });

  it('a client that reconnects with Last-Event-ID to the other process gets exactly the events it missed, in order, then the live ones', async () => {
    const [serverA, serverB] = [await serve(a.process.app!), await serve(b.process.app!)];
    try {
      const mine = new Set<string>();
      const create = async (title: string) => {
        const id = (await api.post('/api/v1/reports').send({ title, query_id: queryId }).expect(201)).body.id as string;
        mine.add(id);
        return id;
      };
      const first = await openSse(serverA.url, token);
      const r1 = await create('one');
      await api.post(`/api/v1/reports/${r1}/pause`).expect(200);
      await first.until((e) => reportEvents(e, mine).length === 2);
      const lastSeen = first.events.filter((e) => e.event === 'report.updated').at(-1)!.id!;
      await first.close();

      // Meanwhile: changes from both processes.
      const r2 = await create('two');
      await keyClient(b, token).post(`/api/v1/reports/${r1}/resume`).expect(200);
      await api.delete(`/api/v1/reports/${r2}`).expect(204);

      const second = await openSse(serverB.url, token, lastSeen);
      await second.until((e) => reportEvents(e, mine).length === 3);
      expect(reportEvents(second.events, mine)).toEqual([`${r2}:created`, `${r1}:resumed`, `${r2}:deleted`]);
      const r3 = await create('three');
      await second.until((e) => reportEvents(e, mine).length === 4);
      expect(reportEvents(second.events, mine)).toEqual([`${r2}:created`, `${r1}:resumed`, `${r2}:deleted`, `${r3}:created`]);
      const ids = second.events.map((e) => e.id!);
      expect(ids.every((id) => id > lastSeen)).toBe(true);
      expect(ids).toEqual([...new Set(ids)].sort((x, y) => x - y)); // increasing, each once
      await second.close();
    } finally {
      await serverA.close();
      await serverB.close();
    }
  }, 60_000);

  it('a client whose missed events are no longer kept gets reset first, and one from another instance too', async () => {
    await api.post('/api/v1/reports').send({ title: 'before the purge', query_id: queryId }).expect(201);
    const log = createEventLog(a.process.container.db);
    // Everything so far is published and old enough to go (but the newest, which always stays).
    await new Promise((r) => setTimeout(r, 500));
    await a.process.container.sql`update events set created_at = now() - interval '2 days' where published_at is not null`;
    const purged = await log.purge(new Date(Date.now() - 24 * 3600_000));
    expect(purged).toBeGreaterThan(0);
    const { latest, oldest } = await log.bounds();
    const server = await serve(b.process.app!);
    try {
      const stale = await openSse(server.url, token, 1);
      await stale.until((e) => e.length >= 1);
      expect(stale.events[0]).toEqual({ event: 'reset', id: latest, data: { reason: 'history_expired', latest } });
      expect(oldest).toBeGreaterThan(2);
      await stale.close();
      const foreign = await openSse(server.url, token, latest + 1000);
      await foreign.until((e) => e.length >= 1);
      expect(foreign.events[0]).toEqual({ event: 'reset', id: latest, data: { reason: 'unknown_event_id', latest } });
      await foreign.close();
    } finally {
      await server.close();
    }
  }, 60_000);

  it('an event meant for one user reaches only that user\'s streams, live and when resuming', async () => {
    const viewer = await createSignedInUser(a, admin, { name: 'Vera', email: 'vera@example.com', role: 'viewer' });
    const viewerKey = (await createKey(admin, { name: 'vera', scope: 'read', owner_id: viewer.userId })).token;
    const [serverA, serverB] = [await serve(a.process.app!), await serve(b.process.app!)];
    try {
      const adminStream = await openSse(serverA.url, token);
      const viewerStream = await openSse(serverB.url, viewerKey);
      const marker = await api.post('/api/v1/reports').send({ title: 'before', query_id: queryId }).expect(201);
      await viewerStream.until((e) => e.some((x) => x.data.id === marker.body.id));
      const before = viewerStream.events.at(-1)!.id!;
      // Written as a service writes a change only one user may read (the audience travels with the row).
      await a.process.container.events.publish([
        { type: 'report.updated', data: { id: 'for-vera', change: 'updated' }, userId: viewer.userId },
        { type: 'report.updated', data: { id: 'for-ada', change: 'updated' }, userId: admin.userId },
      ]);
      const after = (await api.post('/api/v1/reports').send({ title: 'after', query_id: queryId }).expect(201)).body.id as string;
      await viewerStream.until((e) => e.some((x) => x.data.id === after));
      await adminStream.until((e) => e.some((x) => x.data.id === after));
      const ids = (s: SseEvent[]) => s.map((x) => x.data.id);
      expect(ids(viewerStream.events)).toContain('for-vera');
      expect(ids(viewerStream.events)).not.toContain('for-ada');
      expect(ids(adminStream.events)).toContain('for-ada');
      expect(ids(adminStream.events)).not.toContain('for-vera');
      await viewerStream.close();
      await adminStream.close();

      // Resuming from the history filters the same way, on either process.
      const resumedViewer = await openSse(serverA.url, viewerKey, before);
      const resumedAdmin = await openSse(serverB.url, token, before);
      await resumedViewer.until((e) => e.some((x) => x.data.id === after));
      await resumedAdmin.until((e) => e.some((x) => x.data.id === after));
      expect(ids(resumedViewer.events).filter((id) => String(id).startsWith('for-'))).toEqual(['for-vera']);
      expect(ids(resumedAdmin.events).filter((id) => String(id).startsWith('for-'))).toEqual(['for-ada']);
      await resumedViewer.close();
      await resumedAdmin.close();
    } finally {
      await serverA.close();
      await serverB.close();
    }
  }, 60_000);

  it('a change numbers its own events in its transaction; when another holds the numbering lock, the relay numbers them after the commit', async () => {
    const sql = a.process.container.sql;
    const ownRow = async (reportId: string) => (await sql<Array<{ seq: string | null; same_txn: boolean }>>`
      select e.seq, e.xmin::text = r.xmin::text as same_txn from events e, reports r
       where r.id = ${reportId} and e.type = 'report.updated' and e.data->>'id' = ${reportId} and e.data->>'change' = 'created'`)[0]!;

    // Uncontended: the row was numbered by the transaction that created the report (same xmin).
    const plain = (await api.post('/api/v1/reports').send({ title: 'own numbering', query_id: queryId }).expect(201)).body.id as string;
    const own = await ownRow(plain);
    expect(own.seq).not.toBeNull();
    expect(own.same_txn).toBe(true);

    // Contended: a session holds the relays' lock; the change commits unnumbered and a relay
    // numbers it once the lock is free; a connected client gets it all the same.
    const server = await serve(b.process.app!);
    const holder = await sql.reserve();
    try {
      const client = await openSse(server.url, token);
      await holder`select pg_advisory_lock(7246135003)`;
      const contended = (await api.post('/api/v1/reports').send({ title: 'relay numbering', query_id: queryId }).expect(201)).body.id as string;
      expect((await ownRow(contended)).seq).toBeNull();
      await holder`select pg_advisory_unlock(7246135003)`;
      await client.until((e) => e.some((x) => x.data.id === contended && x.data.change === 'created'), 15_000);
      const row = await ownRow(contended);
      expect(row.seq).not.toBeNull();
      expect(row.same_txn).toBe(false);
      await client.close();
    } finally {
      holder.release();
      await server.close();
    }
  }, 60_000);
});

describe('a Redis outage', () => {
  let redis: PrivateRedis;
  let h: Herald;
  beforeAll(async () => {
    redis = await privateRedis();
    await redis.start();
    h = await startHerald({ env: { SVC_REDIS_URL: redis.url } });
  });
  afterAll(async () => {
    await h.stop();
    await redis.remove();
  });

  it('delays events and loses none: changes made while Redis is down reach a connected client, in order, once', async () => {
    const { api, token, queryId } = await prepare(h);
    const server = await serve(h.process.app!);
    try {
      const client = await openSse(server.url, token);
      await redis.stop();
      const mine = new Set<string>();
      for (const title of ['down 1', 'down 2', 'down 3']) {
        mine.add((await api.post('/api/v1/reports').send({ title, query_id: queryId }).expect(201)).body.id as string);
      }
      await redis.start();
      await client.until((e) => reportEvents(e, mine).length === 3, 30_000);
      expect(reportEvents(client.events, mine)).toEqual([...mine].map((id) => `${id}:created`));
      const ids = client.events.map((e) => e.id!);
      expect(ids).toEqual([...new Set(ids)].sort((x, y) => x - y));
      await client.close();
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('numbering in the writer\'s transaction (no relay running)', () => {
  let iso: Isolated;
  let store: ReturnType<typeof createDb>;
  beforeAll(async () => {
    iso = await isolate();
    store = createDb(iso.databaseUrl);
  });
  afterAll(async () => {
    await store.sql.end();
    await iso.release();
  });

  it('numbers what an earlier transaction left unnumbered before its own events, with no gap, and hands them all to be published', async () => {
    const published: Array<Array<{ seq: number; data: Record<string, unknown> }>> = [];
    const uow = createUnitOfWork(store.db, txReposOf, (numbered) => { published.push(numbered); });
    // An earlier change whose writer found the lock taken: committed without a number.
    await outboxRepo(store.db).add([{ type: 'report.updated', data: { id: 'earlier', change: 'created' } }]);
    await uow.run(async (tx) => {
      await tx.outbox.add([
        { type: 'report.updated', data: { id: 'later', change: 'created' } },
        { type: 'report.updated', data: { id: 'later', change: 'paused' } },
      ]);
    });
    expect(published).toHaveLength(1);
    expect(published[0]!.map((e) => `${e.data.id as string}:${e.data.change as string}`)).toEqual(['earlier:created', 'later:created', 'later:paused']);
    const rows = await store.sql<Array<{ seq: string; id: string; published: boolean }>>`
      select seq, data->>'id' as id, published_at is not null as published from events order by seq`;
    expect(rows.map((r) => [Number(r.seq), r.id, r.published])).toEqual([[1, 'earlier', true], [2, 'later', true], [3, 'later', true]]);

    // Ids of rows that do not exist (a savepoint rolled back) leave no hole in the numbers.
    await store.db.transaction(async (tx) => {
      const [row] = await tx.execute(sql_`select seq from herald_number_events(array[999999]::bigint[])`) as unknown as Array<{ seq: string }>;
      expect(row).toBeUndefined();
    });
    await uow.run(async (tx) => { await tx.outbox.add([{ type: 'report.updated', data: { id: 'next', change: 'created' } }]); });
    expect(published.at(-1)!.map((e) => e.seq)).toEqual([4]);
  });

  /**
   * Row versions the events table gets from `statement` (PostgreSQL's own counts for this backend,
   * read before and after it in the same transaction).
   */
  const versions = async <T>(tx: { execute: (q: ReturnType<typeof sql_>) => Promise<unknown> }, statement: () => Promise<T>) => {
    const read = async () => (await tx.execute(sql_`select n_tup_ins::int as ins, n_tup_upd::int as upd from pg_stat_xact_user_tables where relname = 'events'`) as unknown as Array<{ ins: number; upd: number }>)[0]!;
    const before = await read();
    const result = await statement();
    const after = await read();
    return { result, ins: after.ins - before.ins, upd: after.upd - before.upd };
  };

  it('writes each event once: a writer holding the lock inserts its rows numbered, a relay numbers and claims a row in one update', async () => {
    const log = createEventLog(store.db);
    await log.claim(1000); // nothing left over from the cases before
    const seqs = await store.db.transaction(async (tx) => {
      const { result, ins, upd } = await versions(tx, () => tx.execute(sql_`select seq, type from herald_insert_events(${JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ type: 'run.updated', data: { id: `w${i}` }, user_id: null })))}::jsonb)`));
      expect({ ins, upd }).toEqual({ ins: 50, upd: 0 });
      const rows = result as unknown as Array<{ seq: string; type: string | null }>;
      // Its own rows come back as their numbers only: the writer has the rest.
      expect(rows.every((r) => r.type === null)).toBe(true);
      return rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
    });
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => seqs[0]! + i));

    // Rows written without a number (as outside a unit of work) are numbered and claimed by one update each.
    await outboxRepo(store.db).add(Array.from({ length: 30 }, (_, i) => ({ type: 'run.updated', data: { id: `r${i}` } })));
    const claimed = await store.db.transaction(async (tx) => {
      const { result, ins, upd } = await versions(tx, () => tx.execute(sql_`select seq, data from herald_relay_events(1000)`));
      expect({ ins, upd }).toEqual({ ins: 0, upd: 30 });
      return result as unknown as Array<{ seq: string; data: { id: string } }>;
    });
    expect(claimed.map((r) => Number(r.seq)).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => seqs[49]! + 1 + i));
    const [left] = await store.sql`select count(*)::int as n from events where seq is null or published_at is null`;
    expect(left!.n).toBe(0);
  });

  it('still answers whole numbered rows to herald_write_events, as processes of the code before read them while an upgrade rolls through', async () => {
    await createEventLog(store.db).claim(1000);
    const rows = await store.db.transaction(async (tx) => tx.execute(sql_`select seq, type, data from herald_write_events(${JSON.stringify([
      { type: 'report.updated', data: { id: 'old-writer', change: 'created' }, user_id: null },
      { type: 'report.updated', data: { id: 'old-writer', change: 'paused' }, user_id: null },
    ])}::jsonb)`)) as unknown as Array<{ seq: string; type: string; data: { id: string; change: string } }>;
    expect(rows.map((r) => [r.type, r.data.change])).toEqual([['report.updated', 'created'], ['report.updated', 'paused']]);
    expect(Number(rows[1]!.seq)).toBe(Number(rows[0]!.seq) + 1);
    const [left] = await store.sql`select count(*)::int as n from events where seq is null or published_at is null`;
    expect(left!.n).toBe(0);
  });

  it('wakes the relays once per statement that leaves rows unnumbered, and not for rows numbered as they are written', async () => {
    const heard: string[] = [];
    const listening = await store.sql.listen('herald_events', (payload) => heard.push(payload));
    try {
      const uow = createUnitOfWork(store.db, txReposOf, () => undefined);
      await uow.run(async (tx) => { await tx.outbox.add([{ type: 'report.updated', data: { id: 'numbered', change: 'created' } }]); });
      await outboxRepo(store.db).add(Array.from({ length: 20 }, (_, i) => ({ type: 'run.updated', data: { id: `u${i}` } })));
      await store.sql`select pg_notify('herald_events', 'marker')`;
      const deadline = Date.now() + 5000;
      while (!heard.includes('marker') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(heard).toEqual(['', 'marker']);
    } finally {
      await listening.unlisten();
      await createEventLog(store.db).claim(1000);
    }
  });
});
