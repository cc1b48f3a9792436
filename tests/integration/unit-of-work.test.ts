/**
 * A change commits with its audit record or not at all: when the security event cannot be
 * written (here a trigger on security_events raises), creating, changing or deleting a connection
 * or a channel answers 500 and leaves nothing behind, so the caller's retry neither duplicates
 * the change nor leaves a hole in the audit trail.
 */
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
