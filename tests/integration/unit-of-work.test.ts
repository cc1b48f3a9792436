/**
 * A change commits with its audit record and its events or not at all: when the security event
 * cannot be written (here a trigger on security_events raises), creating, changing or deleting a
 * connection, a channel, a user, an API key, a delivery or the caller's sessions answers 500 and
 * leaves nothing behind, so the caller's retry neither duplicates the change nor leaves a hole in
 * the audit trail; when the outbox refuses an event (a trigger on events), a report's change or a
 * manual run (with its Idempotency-Key) is not made either.
 */
import { settleRun } from '../../src/domain/deliveries/settle-run.js';
import postgres from 'postgres';
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

let h: Herald;
let admin: SessionClient;
let src: PostgresSource;
let store: postgres.Sql;

beforeAll(async () => {
  h = await startHerald();
  admin = await setupAdmin(h);
  src = await createPostgresSource(async () => undefined);
  store = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
  await store.unsafe(`
    create function audit_broken() returns trigger language plpgsql as $$ begin raise exception 'the audit trail cannot be written'; end $$;
    create trigger audit_broken before insert on security_events for each row
      when (new.type like 'connection.%' or new.type like 'channel.%') execute function audit_broken();
    alter table security_events disable trigger audit_broken;`);
});
afterAll(async () => {
  await store.end();
  await h.stop();
  await src.drop();
});

const breakAudit = () => store`alter table security_events enable trigger audit_broken`;
const mendAudit = () => store`alter table security_events disable trigger audit_broken`;
const audited = async (type: string) => (await store`select count(*)::int as n from security_events where type = ${type}`)[0]!.n as number;

it('a connection whose audit record fails is not created, changed or deleted; the retry makes exactly one', async () => {
  await breakAudit();
  const failed = await admin.post('/api/v1/connections').send(src.connection('Audited'));
  expect(failed.status).toBe(500);
  expect(failed.body).toMatchObject({ code: 'internal' });
  expect((await store`select count(*)::int as n from connections`)[0]!.n).toBe(0);
  await mendAudit();

  const made = (await admin.post('/api/v1/connections').send(src.connection('Audited')).expect(201)).body;
  expect((await store`select count(*)::int as n from connections`)[0]!.n).toBe(1);
  expect(await audited('connection.created')).toBe(1);

  await breakAudit();
  expect((await admin.patch(`/api/v1/connections/${made.id}`).send({ version: 1, name: 'Renamed' })).status).toBe(500);
  expect((await admin.delete(`/api/v1/connections/${made.id}`)).status).toBe(500);
  await mendAudit();
  const after = (await admin.get(`/api/v1/connections/${made.id}`).expect(200)).body;
  expect(after).toMatchObject({ name: 'Audited', version: 1 });
  expect(await audited('connection.updated')).toBe(0);
  expect(await audited('connection.deleted')).toBe(0);
});

it('a channel whose audit record fails is not created, changed or deleted', async () => {
  await breakAudit();
  const body = { name: 'Hook', type: 'webhook', settings: { url: 'https://hooks.example.com/herald' } };
  expect((await admin.post('/api/v1/channels').send(body)).status).toBe(500);
  expect((await store`select count(*)::int as n from channels`)[0]!.n).toBe(0);
  await mendAudit();
  const made = (await admin.post('/api/v1/channels').send(body).expect(201)).body;
  await breakAudit();
  expect((await admin.patch(`/api/v1/channels/${made.id}`).send({ version: 1, name: 'Renamed' })).status).toBe(500);
  expect((await admin.delete(`/api/v1/channels/${made.id}`)).status).toBe(500);
  await mendAudit();
  expect((await admin.get(`/api/v1/channels/${made.id}`).expect(200)).body).toMatchObject({ name: 'Hook', version: 1 });
  expect(await audited('channel.created')).toBe(1);
  expect(await audited('channel.updated') + await audited('channel.deleted')).toBe(0);
});

it('a connection in use is refused (409) inside the unit of work, and the audit trail records only what happened', async () => {
  const conn = (await admin.post('/api/v1/connections').send(src.connection('Used')).expect(201)).body;
  await admin.post('/api/v1/queries').send({ name: 'Uses it', connection_id: conn.id, sql: 'select 1 as one' }).expect(201);
  const refused = await admin.delete(`/api/v1/connections/${conn.id}`);
  expect(refused.status).toBe(409);
  expect(refused.body.dependents).toEqual([expect.objectContaining({ type: 'query', name: 'Uses it' })]);
  expect(await audited('connection.deleted')).toBe(0);
});

it('a report change commits with its event or not at all (the outbox refuses: nothing changes)', async () => {
  const conn = (await admin.post('/api/v1/connections').send(src.connection('For reports')).expect(201)).body;
  const query = (await admin.post('/api/v1/queries').send({ name: 'For reports', connection_id: conn.id, sql: 'select 1 as one' }).expect(201)).body;
  await store.unsafe(`
    create function outbox_broken() returns trigger language plpgsql as $$ begin raise exception 'the outbox cannot be written'; end $$;
    create trigger outbox_broken before insert on events for each row when (new.type = 'report.updated') execute function outbox_broken();`);
  try {
    expect((await admin.post('/api/v1/reports').send({ title: 'Eventless', query_id: query.id })).status).toBe(500);
    expect((await store`select count(*)::int as n from reports where title = 'Eventless'`)[0]!.n).toBe(0);
  } finally {
    await store`drop trigger outbox_broken on events`;
  }
  const report = (await admin.post('/api/v1/reports').send({ title: 'Evented', query_id: query.id }).expect(201)).body;
  await store.unsafe(`create trigger outbox_broken before insert on events for each row when (new.type = 'report.updated') execute function outbox_broken();`);
  try {
    expect((await admin.post(`/api/v1/reports/${report.id}/pause`)).status).toBe(500);
    expect((await admin.delete(`/api/v1/reports/${report.id}`)).status).toBe(500);
  } finally {
    await store`drop trigger outbox_broken on events`;
  }
  expect((await admin.get(`/api/v1/reports/${report.id}`).expect(200)).body).toMatchObject({ paused: false, version: 1 });
});

describe('identity, deliveries and runs commit through the unit of work', () => {
  beforeAll(async () => {
    await store.unsafe(`
      create trigger audit_broken_more before insert on security_events for each row
        when (new.type in ('user.created', 'api_key.created', 'api_key.revoked', 'delivery.created', 'session.revoked_all')) execute function audit_broken();
      alter table security_events disable trigger audit_broken_more;`);
  });
  const breakMore = () => store`alter table security_events enable trigger audit_broken_more`;
  const mendMore = () => store`alter table security_events disable trigger audit_broken_more`;
  const count = async (table: string) => (await store.unsafe(`select count(*)::int as n from ${table}`))[0]!.n as number;

  it('a user whose audit record fails is not created; the retry makes exactly one', async () => {
    const users = await count('users');
    await breakMore();
    try {
      const failed = await admin.post('/api/v1/users').send({ name: 'Ada Audit', email: 'ada.audit@example.com', role: 'viewer' });
      expect(failed.status).toBe(500);
      expect(failed.body).toMatchObject({ code: 'internal' });
      expect(await count('users')).toBe(users);
    } finally {
      await mendMore();
    }
    await admin.post('/api/v1/users').send({ name: 'Ada Audit', email: 'ada.audit@example.com', role: 'viewer' }).expect(201);
    expect(await count('users')).toBe(users + 1);
    expect((await store`select count(*)::int as n from security_events where type = 'user.created' and details->>'role' = 'viewer'`)[0]!.n).toBe(1);
  });

  it('an API key whose audit record fails is neither created nor revoked', async () => {
    await breakMore();
    try {
      expect((await admin.post('/api/v1/api-keys').send({ name: 'unaudited', scope: 'read' })).status).toBe(500);
      expect(await count('api_keys')).toBe(0);
    } finally {
      await mendMore();
    }
    const made = (await admin.post('/api/v1/api-keys').send({ name: 'audited', scope: 'read' }).expect(201)).body;
    await breakMore();
    try {
      expect((await admin.post(`/api/v1/api-keys/${made.key.id}/revoke`)).status).toBe(500);
    } finally {
      await mendMore();
    }
    expect((await store`select revoked_at from api_keys where id = ${made.key.id}`)[0]!.revoked_at).toBeNull();
    expect(await audited('api_key.created')).toBe(1);
    expect(await audited('api_key.revoked')).toBe(0);
  });

  it('signing out everywhere whose audit record fails ends no session', async () => {
    const live = async () => (await store`select count(*)::int as n from sessions where user_id = ${admin.userId} and revoked_at is null`)[0]!.n as number;
    const before = await live();
    expect(before).toBeGreaterThan(0);
    await breakMore();
    try {
      expect((await admin.post('/api/v1/me/sessions/revoke-all')).status).toBe(500);
    } finally {
      await mendMore();
    }
    expect(await live()).toBe(before);
    await admin.get('/api/v1/me').expect(200);
  });

  it('a delivery whose audit record fails is not added, and a manual run whose event cannot be written is not queued', async () => {
    const conn = (await admin.post('/api/v1/connections').send(src.connection('For runs')).expect(201)).body;
    const query = (await admin.post('/api/v1/queries').send({ name: 'For runs', connection_id: conn.id, sql: 'select 1 as one' }).expect(201)).body;
    const report = (await admin.post('/api/v1/reports').send({ title: 'Run me', query_id: query.id }).expect(201)).body;
    const channel = (await admin.post('/api/v1/channels')
      .send({ name: 'Deliver here', type: 'webhook', settings: { url: 'https://hooks.example.com/deliver' } }).expect(201)).body;
    await breakMore();
    try {
      expect((await admin.post(`/api/v1/reports/${report.id}/deliveries`).send({ channel_id: channel.id, settings: { attach: 'csv' } })).status).toBe(500);
      expect(await count('deliveries')).toBe(0);
    } finally {
      await mendMore();
    }
    await admin.post(`/api/v1/reports/${report.id}/deliveries`).send({ channel_id: channel.id, settings: { attach: 'csv' } }).expect(201);
    expect(await count('deliveries')).toBe(1);

    await store.unsafe(`create trigger outbox_broken before insert on events for each row when (new.type = 'run.updated') execute function outbox_broken();`);
    try {
      const failed = await admin.post(`/api/v1/reports/${report.id}/run`).set('Idempotency-Key', 'uow-run').send({ deliver: false });
      expect(failed.status).toBe(500);
      expect(await count('runs')).toBe(0);
      expect(await count('idempotency_keys')).toBe(0);
    } finally {
      await store`drop trigger outbox_broken on events`;
    }
    // The retry with the same key makes the run (nothing of the failed one holds the key).
    const run = (await admin.post(`/api/v1/reports/${report.id}/run`).set('Idempotency-Key', 'uow-run').send({ deliver: false }).expect(202)).body;
    expect((await store`select count(*)::int as n from events where type = 'run.updated' and data->>'id' = ${run.id}`)[0]!.n).toBeGreaterThan(0);
  });
});

it('two resends of one run that end together settle it by both attempts: the second waits for the first\'s commit (the run\'s row is locked first)', async () => {
  const conn = (await admin.post('/api/v1/connections').send(src.connection('For resends')).expect(201)).body;
  const query = (await admin.post('/api/v1/queries').send({ name: 'For resends', connection_id: conn.id, sql: 'select 1 as one' }).expect(201)).body;
  const report = (await admin.post('/api/v1/reports').send({ title: 'Resent', query_id: query.id }).expect(201)).body;
  const [run] = await store`insert into runs (id, report_id, trigger, status, attempts, finished_at)
    values (gen_random_uuid(), ${report.id}, 'manual', 'partial', 1, now()) returning id`;
  const attempts = await store`insert into delivery_attempts (id, run_id, channel_name, channel_type, position, status)
    values (gen_random_uuid(), ${run!.id}, 'one', 'webhook', 0, 'sending'), (gen_random_uuid(), ${run!.id}, 'two', 'webhook', 1, 'sending')
    returning id`;
  const uow = h.process.container.uow;
  const sent = { status: 'sent' as const, sends: 1, finishedAt: new Date(), statusCode: 200, peerMessageId: null, detail: null, error: null };
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  let firstSettled!: () => void;
  const settledOnce = new Promise<void>((r) => { firstSettled = r; });
  // The first resend records its attempt sent and settles the run, then holds its transaction open.
  // As the delivery worker records an end: the run's row locked, the attempt's end, the run settled.
  const first = uow.run(async (tx) => {
    const locked = await tx.runs.lockForSettling(run!.id);
    await tx.attempts.finish(attempts[0]!.id, sent);
    await settleRun(tx, locked!, new Date());
    firstSettled();
    await gate;
  });
  await settledOnce;
  // The second, meanwhile: it must not count the first's attempt as failed.
  const second = uow.run(async (tx) => {
    const locked = await tx.runs.lockForSettling(run!.id);
    await tx.attempts.finish(attempts[1]!.id, sent);
    await settleRun(tx, locked!, new Date());
  });
  const waiting = async () => {
    for (;;) {
      const [w] = await store`select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where not l.granted and a.datname = current_database()`;
      if (w!.n > 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await Promise.race([second, waiting()]);
  release();
  await Promise.all([first, second]);
  const [after] = await store`select status from runs where id = ${run!.id}`;
  expect(after!.status).toBe('success');
}, 20_000);
