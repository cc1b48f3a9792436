/**
 * The same API on a real MariaDB (the mysql connector): a connection is tested and saved, its
 * schema introspected, a parameterised query previewed with its values bound, a write and a
 * second statement refused with the data unchanged, a wrong password told as auth_failed.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createMysqlScratch, mysqlRun, mysqlAdmin, type ScratchDb } from '../support/connector-dbs.js';

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;
let db: ScratchDb;
let body: Record<string, unknown>;

beforeAll(async () => {
  h = await startHerald();
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Mara', email: 'mara@example.com', role: 'editor' });
  db = await createMysqlScratch();
  await db.admin('create table orders (id int primary key, status varchar(20) not null, total decimal(30,10) not null, placed datetime)');
  await db.admin("insert into orders values (1, 'shipped', 10.5, '2026-11-01 08:00:00'), (2, 'open', 99, null), (3, 'shipped', 12345678901234567890.0123456789, '2026-11-02 09:30:00')");
  const c = db.config;
  body = { name: 'Orders', type: 'mysql', host: c.host, port: c.port, database: c.database, username: c.username, ssl_mode: 'disable', ...(c.password ? { password: c.password } : {}) };
});
afterAll(async () => {
  await h.stop();
  await db.drop();
});

it('tests, saves, introspects and previews a MariaDB connection through the API', async () => {
  const tested = await admin.post('/api/v1/connections/test').send(body);
  expect(tested.status).toBe(200);
  expect(tested.body.server_version).toMatch(/MariaDB|MySQL|\d/);
  const created = await admin.post('/api/v1/connections').send(body);
  expect(created.status).toBe(201);
  const id = created.body.id as string;

  const schema = await editor.post(`/api/v1/connections/${id}/schema/refresh`);
  const orders = schema.body.tables.find((t: { name: string }) => t.name === 'orders');
  expect(orders.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'status', 'total', 'placed']);

  const query = await editor.post('/api/v1/queries').send({
    name: 'Shipped', connection_id: id, sql: 'select id, total, placed from orders where status = {{ status }} order by id',
    parameters: [{ name: 'status', type: 'string', required: true }],
  });
  expect(query.status).toBe(201);
  const preview = await editor.post('/api/v1/queries/preview').send({ query_id: query.body.id, parameters: { status: 'shipped' } });
  expect(preview.status).toBe(200);
  expect(preview.body.rows).toEqual([
    [1, '10.5000000000', '2026-11-01T08:00:00'],
    [3, '12345678901234567890.0123456789', '2026-11-02T09:30:00'],
  ]);
  const injected = await editor.post('/api/v1/queries/preview').send({ query_id: query.body.id, parameters: { status: "x' or '1'='1" } });
  expect(injected.body.row_count).toBe(0);

  for (const sql of ["insert into orders values (9, 'x', 1, null)", 'select 1; delete from orders', "select 1; commit; insert into orders values (8, 'x', 1, null)"]) {
    const res = await editor.post('/api/v1/queries/preview').send({ connection_id: id, sql });
    expect({ sql, status: res.status }).toEqual({ sql, status: 422 });
    expect(['query.not_read_only', 'query.failed']).toContain(res.body.code);
  }
  expect(await db.admin('select count(*) as n from orders')).toEqual([{ n: 3 }]);
});

it('answers connection.auth_failed for a wrong password', async () => {
  const server = mysqlAdmin();
  const user = `herald_t_${Date.now() % 100000}`;
  await mysqlRun(server, `CREATE USER '${user}'@'%' IDENTIFIED BY 'right-password-1'`);
  await mysqlRun(server, `CREATE USER '${user}'@'localhost' IDENTIFIED BY 'right-password-1'`);
  try {
    const res = await admin.post('/api/v1/connections/test').send({ ...body, username: user, password: 'wrong-password-2' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('connection.auth_failed');
  } finally {
    await mysqlRun(server, `DROP USER '${user}'@'%'`);
    await mysqlRun(server, `DROP USER '${user}'@'localhost'`);
    server.end();
  }
});
