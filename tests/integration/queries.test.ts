/**
 * Queries through the API on a real PostgreSQL: placeholders bound as parameters, versions on
 * every change of sql, connection or parameters, restore, preview with a row cap, a timeout
 * that really cancels, and read-only refusals that leave the data unchanged.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

let h: Herald;
let editor: SessionClient;
let src: PostgresSource;
let connectionId: string;

beforeAll(async () => {
  h = await startHerald();
  const admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table sales (id int primary key, region text not null, total numeric(30,10), sold_on date)`;
    await sql`insert into sales select g, case when g % 2 = 0 then 'EU' else 'US' end, g * 1.5, date '2026-01-01' + g from generate_series(1, 1200) g`;
  });
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Shop')).expect(201)).body.id;
});
afterAll(async () => {
  await h.stop();
  await src.drop();
});

const region = [{ name: 'region', type: 'string', required: true }];

describe('an editor writes, previews, changes and restores a query', () => {
  let id: string;

  it('refuses a placeholder without a declaration, on field sql', async () => {
    const res = await editor.post('/api/v1/queries').send({ name: 'x', connection_id: connectionId, sql: 'select * from sales where region = {{ region }}' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'sql', code: 'validation.invalid' })]);
  });

  it('creates version 1 and previews it with a bound value', async () => {
    const created = await editor.post('/api/v1/queries').send({
      name: 'Sales by region', description: 'per region', connection_id: connectionId,
      sql: 'select id, region, total from sales where region = {{ region }} order by id', parameters: region,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ current_version: 1, version: 1, parameters: [{ name: 'region', type: 'string', required: true }] });
    id = created.body.id;
    const preview = await editor.post('/api/v1/queries/preview').send({ query_id: id, parameters: { region: "EU' or '1'='1" } });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ row_count: 0, truncated: false, rows: [] }); // bound, never spliced
    const eu = await editor.post('/api/v1/queries/preview').send({ query_id: id, parameters: { region: 'EU' }, limit: 3 });
    expect(eu.body.columns).toEqual([{ name: 'id', type: 'int4' }, { name: 'region', type: 'text' }, { name: 'total', type: 'numeric' }]);
    expect(eu.body.rows).toEqual([[2, 'EU', '3.0000000000'], [4, 'EU', '6.0000000000'], [6, 'EU', '9.0000000000']]);
    expect(eu.body).toMatchObject({ row_count: 3, truncated: true, elapsed_ms: expect.any(Number) });
    const missing = await editor.post('/api/v1/queries/preview').send({ query_id: id });
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'parameters.region', code: 'validation.required' })]);
  });

  it('makes a version of each change of sql or parameters, not of a rename', async () => {
    const renamed = await editor.patch(`/api/v1/queries/${id}`).send({ version: 1, name: 'Regional sales' });
    expect(renamed.body).toMatchObject({ version: 2, current_version: 1 });
    const second = await editor.patch(`/api/v1/queries/${id}`).send({ version: 2, sql: 'select count(*) as n from sales where region = {{ region }}' });
    expect(second.body).toMatchObject({ version: 3, current_version: 2 });
    const third = await editor.patch(`/api/v1/queries/${id}`).send({
      version: 3, sql: 'select count(*) as n from sales where region = {{ region }} and total > {{ min }}',
      parameters: [...region, { name: 'min', type: 'number', default: 100 }],
    });
    expect(third.body).toMatchObject({ version: 4, current_version: 3 });
    const stale = await editor.patch(`/api/v1/queries/${id}`).send({ version: 3, name: 'late' });
    expect(stale.status).toBe(409);
    const preview = await editor.post('/api/v1/queries/preview').send({ query_id: id, parameters: { region: 'US' } });
    expect(preview.body.rows).toEqual([[567]]); // count(*) is bigint: a number while exactly representable
  });

  it('lists versions newest first, shows one, and restores version 1 as a new current version', async () => {
    const versions = await editor.get(`/api/v1/queries/${id}/versions?limit=2`);
    expect(versions.body.items.map((v: { number: number }) => v.number)).toEqual([3, 2]);
    const rest = await editor.get(`/api/v1/queries/${id}/versions?cursor=${versions.body.next_cursor}`);
    expect(rest.body.items.map((v: { number: number }) => v.number)).toEqual([1]);
    const v1 = await editor.get(`/api/v1/queries/${id}/versions/1`);
    expect(v1.body).toMatchObject({ number: 1, sql: expect.stringContaining('order by id'), connection_id: connectionId, restored_from: null });
    await editor.get(`/api/v1/queries/${id}/versions/9`).expect(404);

    const restored = await editor.post(`/api/v1/queries/${id}/restore`).send({ number: 1, version: 4 });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ current_version: 4, version: 5, sql: v1.body.sql, parameters: v1.body.parameters });
    const v4 = await editor.get(`/api/v1/queries/${id}/versions/4`);
    expect(v4.body).toMatchObject({ number: 4, restored_from: 1 });
  });

  it('answers 422 on cursor for a cursor that was not made by the server', async () => {
    const forged = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'x'])).toString('base64url');
    const res = await editor.get(`/api/v1/queries?cursor=${forged}`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'cursor', code: 'validation.invalid' })]);
  });

  it('lists queries most recently changed first', async () => {
    const other = await editor.post('/api/v1/queries').send({ name: 'Newest', connection_id: connectionId, sql: 'select 1' });
    const list = await editor.get('/api/v1/queries');
    expect(list.body.items.map((q: { id: string }) => q.id).slice(0, 2)).toEqual([other.body.id, id]);
  });
});

describe('preview of unsaved SQL', () => {
  it('binds values given by name and caps the rows', async () => {
    const res = await editor.post('/api/v1/queries/preview').send({
      connection_id: connectionId, sql: 'select id from sales where id <= {{ n }} order by id', parameters: { n: 600 },
    });
    expect(res.body).toMatchObject({ row_count: 500, truncated: true });
  });

  it('cancels a statement past its timeout on the database and answers query.timeout', async () => {
    const res = await editor.post('/api/v1/queries/preview').send({ connection_id: connectionId, sql: 'select pg_sleep(30)', timeout_seconds: 1 });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('query.timeout');
    const running = await src.sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and query like 'select pg_sleep(30)%' and state = 'active'`;
    expect(running[0]!.n).toBe(0);
  }, 20_000);

  it('refuses writes and a second statement, and the data stays as it was', async () => {
    for (const sql of ["insert into sales values (9999, 'XX', 1, null)", 'select 1; delete from sales', "select 1; commit; insert into sales values (9998, 'XX', 1, null)"]) {
      const res = await editor.post('/api/v1/queries/preview').send({ connection_id: connectionId, sql });
      expect({ sql, status: res.status }).toEqual({ sql, status: 422 });
      expect(['query.not_read_only', 'query.failed']).toContain(res.body.code);
    }
    const count = await src.sql`select count(*)::int as n from sales`;
    expect(count[0]!.n).toBe(1200);
  });

  it('needs connection_id and sql without query_id', async () => {
    const res = await editor.post('/api/v1/queries/preview').send({ sql: 'select 1' });
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'connection_id', code: 'validation.required' })]);
  });
});
