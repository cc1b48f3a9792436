/**
 * Connections through the API, on a real PostgreSQL: plugins, create with a secret password,
 * ordering, tests of saved and unsaved settings, refusals, schema cache, in-use protection and
 * the audit trail.
 */
import net from 'node:net';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;
let src: PostgresSource;
const PASSWORD = 'PLANTED-db-password-81';

beforeAll(async () => {
  h = await startHerald();
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Eddie', email: 'eddie@example.com', role: 'editor' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table sales (id serial primary key, region text not null, total numeric(12,2))`;
    await sql`create view eu_sales as select * from sales where region = 'EU'`;
    await sql`insert into sales (region, total) values ('EU', 10.5), ('US', 20)`;
  });
});
afterAll(async () => {
  await h.stop();
  await src.drop();
});

describe('plugins', () => {
  it('lists the postgres and mysql connectors with their schema, secret fields, capabilities and en/de labels', async () => {
    const res = await editor.get('/api/v1/plugins');
    expect(res.status).toBe(200);
    type Plugin = { id: string; settings_schema: { properties: { password: Record<string, unknown> } }; capabilities: string[]; translations: Record<string, Record<string, string>> };
    const byId = Object.fromEntries((res.body.items as Plugin[]).map((p) => [p.id, p]));
    for (const id of ['postgres', 'mysql']) {
      const p = byId[id]!;
      expect(p).toMatchObject({ kind: 'connector', version: expect.any(String) });
      expect(p.settings_schema.properties.password['x-secret']).toBe(true);
      expect(p.capabilities).toEqual(expect.arrayContaining(['schema_introspection', 'cancel']));
      expect(Object.keys(p.translations)).toEqual(expect.arrayContaining(['en', 'de']));
      expect(p.translations.de?.name).toEqual(expect.any(String));
      expect(p).not.toHaveProperty('delivery_schema');
    }
  });

  it('lists each channel with the schema of what its deliveries add, labelled', async () => {
    const res = await editor.get('/api/v1/plugins');
    type Channel = { id: string; kind: string; delivery_schema?: { properties: Record<string, { type: string }> }; translations: Record<string, Record<string, string>> };
    const byId = Object.fromEntries((res.body.items as Channel[]).map((p) => [p.id, p]));
    expect(Object.keys(byId.email!.delivery_schema!.properties)).toEqual(['to', 'cc', 'bcc']);
    expect(byId.email!.delivery_schema!.properties.to!.type).toBe('array');
    expect(byId.email!.translations.de!['delivery.to.label']).toBe('An');
    expect(byId.webhook!.delivery_schema!.properties).toEqual({});
    for (const p of Object.values(byId).filter((x) => x.kind === 'channel')) expect(p.delivery_schema).toEqual(expect.objectContaining({ type: 'object' }));
  });
});

describe('connections', () => {
  let id: string;

  it('creates a connection whose password reads back only as configured, and records it in the audit trail', async () => {
    const res = await admin.post('/api/v1/connections').send({ ...src.connection('Warehouse'), password: PASSWORD });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Warehouse', type: 'postgres', port: src.port, password: { configured: true }, version: 1, schema_refreshed_at: null });
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    id = res.body.id;
    const events = await admin.get('/api/v1/security-events?type=connection.created');
    expect(events.body.items[0]).toMatchObject({ type: 'connection.created', target: { type: 'connection', id } });
    const stored = await h.process.container.sql`select password_sealed from connections where id = ${id}`;
    expect(stored[0]!.password_sealed).not.toContain(PASSWORD);
    expect(h.logs.join('')).not.toContain(PASSWORD);
  });

  it('lists by name, paginated, and refuses a taken name, a bad port and an unknown type per field', async () => {
    await admin.post('/api/v1/connections').send(src.connection('analytics')).expect(201);
    const page1 = await editor.get('/api/v1/connections?limit=1');
    expect(page1.body.items.map((c: { name: string }) => c.name)).toEqual(['analytics']);
    const page2 = await editor.get(`/api/v1/connections?limit=1&cursor=${page1.body.next_cursor}`);
    expect(page2.body.items.map((c: { name: string }) => c.name)).toEqual(['Warehouse']);
    expect(page2.body.next_cursor).toBeUndefined();

    const taken = await admin.post('/api/v1/connections').send(src.connection('WAREHOUSE'));
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual([expect.objectContaining({ field: 'name', code: 'validation.unique' })]);
    const port = await admin.post('/api/v1/connections').send({ ...src.connection('p'), port: 70000 });
    expect(port.body.errors).toEqual([expect.objectContaining({ field: 'port', code: 'validation.range' })]);
    const type = await admin.post('/api/v1/connections').send({ ...src.connection('t'), type: 'oracle' });
    expect(type.body.errors).toEqual([expect.objectContaining({ field: 'type', code: 'validation.enum' })]);
  });

  it('refuses TLS material given as a path on the server', async () => {
    const res = await admin.post('/api/v1/connections').send({ ...src.connection('files'), ssl_mode: 'verify-full', ssl_ca: '/etc/ssl/private/server.key' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ field: 'ssl_ca' });
  });

  it('tests a saved connection and unsaved settings: server version and round trip', async () => {
    const saved = await admin.post(`/api/v1/connections/${id}/test`);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ ok: true, server_version: expect.stringMatching(/\d/), round_trip_ms: expect.any(Number) });
    const unsaved = await admin.post('/api/v1/connections/test').send(src.connection('unsaved'));
    expect(unsaved.status).toBe(200);
    // An edit form tests with the stored password: the saved connection fills in what is left out.
    const edit = await admin.post('/api/v1/connections/test').send({ connection_id: id, password: { configured: true } });
    expect(edit.status).toBe(200);
  });

  it('answers connection.unreachable for a refused port and for a server that never answers, within the bound', async () => {
    const closed = await admin.post('/api/v1/connections/test').send({ ...src.connection('x'), port: 1 });
    expect(closed.status).toBe(422);
    expect(closed.body.code).toBe('connection.unreachable');
    // A peer that accepts and stays silent: the connect timeout ends the wait.
    const accepted: net.Socket[] = [];
    const silent = net.createServer((socket) => { accepted.push(socket); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const res = await admin.post('/api/v1/connections/test').send({ ...src.connection('x'), port });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('connection.unreachable');
    } finally {
      // close() stops listening only: the connection it accepted stays open until destroyed.
      for (const socket of accepted) socket.destroy();
      silent.close();
    }
  }, 30_000);

  it('never sends a stored password to another server: moving host or port needs the password again', async () => {
    const moved = await admin.post('/api/v1/connections/test').send({ connection_id: id, port: 1 });
    expect(moved.status).toBe(422);
    expect(moved.body.errors).toEqual([expect.objectContaining({ field: 'password', code: 'validation.required' })]);
    const patched = await admin.patch(`/api/v1/connections/${id}`).send({ version: 1, host: 'elsewhere.example.com' });
    expect(patched.body.errors).toEqual([expect.objectContaining({ field: 'password', code: 'validation.required' })]);
    // With the password given again, the settings are simply tried (here: nothing listens).
    const resent = await admin.post('/api/v1/connections/test').send({ connection_id: id, port: 1, password: PASSWORD });
    expect(resent.body.code).toBe('connection.unreachable');
  });

  it('answers connection.auth_failed when the database refuses the login', async () => {
    const res = await admin.post('/api/v1/connections/test').send({ ...src.connection('x'), username: 'no_such_role_herald' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('connection.auth_failed');
  });

  it('caches the schema on refresh (editor) and serves it to viewers', async () => {
    const before = await editor.get(`/api/v1/connections/${id}/schema`);
    expect(before.body).toEqual({ connection_id: id, refreshed_at: null, tables: [] });
    const refreshed = await editor.post(`/api/v1/connections/${id}/schema/refresh`);
    expect(refreshed.status).toBe(200);
    const sales = refreshed.body.tables.find((t: { name: string }) => t.name === 'sales');
    expect(sales).toMatchObject({ schema: 'public', kind: 'table' });
    expect(sales.columns).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'total', type: expect.stringMatching(/numeric/), nullable: true })]));
    expect(refreshed.body.tables.find((t: { name: string }) => t.name === 'eu_sales')).toMatchObject({ kind: 'view' });
    const cached = await editor.get(`/api/v1/connections/${id}/schema`);
    expect(cached.body.refreshed_at).toEqual(refreshed.body.refreshed_at);
    expect((await editor.get(`/api/v1/connections/${id}`)).body.schema_refreshed_at).toEqual(refreshed.body.refreshed_at);
  });

  it('reads the schema snapshot for the schema only: a connection read, listed, changed, exported or run on carries none', async () => {
    // A second connection, so the runs made here leave the first unused (the delete test below).
    const made = await admin.post('/api/v1/connections').send({ ...src.connection('Snapshot source'), password: PASSWORD });
    const other: string = made.body.id;
    expect((await editor.post(`/api/v1/connections/${other}/schema/refresh`)).status).toBe(200);
    const [stored] = await h.process.container.sql<Array<{ tables: number }>>`
      select jsonb_array_length(schema_snapshot -> 'tables') as tables from connections where id = ${other}`;
    expect(stored!.tables).toBeGreaterThanOrEqual(2);
    const { repos } = h.process.container;
    const noSnapshot = (record: object | undefined) => {
      expect(record).toMatchObject({ id: other, schemaRefreshedAt: expect.any(Date) });
      expect(record).not.toHaveProperty('schemaSnapshot');
    };

    noSnapshot(await repos.connections.find(other));
    noSnapshot((await repos.connections.list({ limit: 100 })).items.find((c) => c.id === other));
    const changed = await admin.patch(`/api/v1/connections/${other}`).send({ version: 1, name: 'Snapshot source 2' });
    expect(changed.status).toBe(200);
    noSnapshot(await repos.connections.update(other, 2, { name: 'Snapshot source 3' }, new Date()));
    noSnapshot((await repos.config.state()).connections.find((c) => c.id === other));

    const query = await editor.post('/api/v1/queries').send({ name: 'Snapshot run', connection_id: other, sql: 'select 1 as one' });
    const report = await editor.post('/api/v1/reports').send({ title: 'Snapshot run', query_id: query.body.id });
    noSnapshot((await repos.runEngine.source(report.body.id))?.connection);
    const run = await editor.post(`/api/v1/reports/${report.body.id}/run`);
    expect(run.status).toBe(202);
    const claimed = await repos.runEngine.claim(run.body.id, new Date(), []);
    expect(claimed?.source?.connection).toMatchObject({ host: src.host, port: src.port, username: src.connection('x').username });
    noSnapshot(claimed?.source?.connection);

    // The schema read still has it whole.
    const schema = await editor.get(`/api/v1/connections/${other}/schema`);
    expect(schema.body.tables.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['sales', 'eu_sales']));
  });

  it('changes with the current version only, keeps the password unless replaced, and removes it with null', async () => {
    const stale = await admin.patch(`/api/v1/connections/${id}`).send({ version: 99, host: src.host });
    expect(stale.status).toBe(409);
    const kept = await admin.patch(`/api/v1/connections/${id}`).send({ version: 1, name: 'Warehouse EU', password: { configured: true } });
    expect(kept.body).toMatchObject({ name: 'Warehouse EU', version: 2, password: { configured: true } });
    const removed = await admin.patch(`/api/v1/connections/${id}`).send({ version: 2, password: null });
    expect(removed.body.version).toBe(3);
    expect(removed.body.password).toBeUndefined();
  });

  it('refuses to delete a connection a query uses (409 with the query as dependent), then deletes it once unused', async () => {
    const q = await editor.post('/api/v1/queries').send({ name: 'EU sales', connection_id: id, sql: 'select * from sales' });
    expect(q.status).toBe(201);
    const used = await admin.delete(`/api/v1/connections/${id}`);
    expect(used.status).toBe(409);
    expect(used.body).toMatchObject({ code: 'connection.in_use', dependents: [{ type: 'query', id: q.body.id, name: 'EU sales' }] });
    await editor.delete(`/api/v1/queries/${q.body.id}`).expect(204);
    await admin.delete(`/api/v1/connections/${id}`).expect(204);
    await editor.get(`/api/v1/connections/${id}`).expect(404);
  });
});
