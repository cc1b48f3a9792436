/**
 * Resource keys (the slugs configuration files refer to resources by) of connections, queries,
 * channels and reports: made from the name on create, the first free suffix when taken (reports'
 * titles repeat; creates racing for one title all succeed), kept on rename, changed with PATCH
 * (a taken or malformed key is 422 on `key`); and the keys the migration gave existing rows.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';
import { isolate, type Isolated } from '../support/isolation.js';
import { migrate } from '../../src/infra/db/migrate.js';
import { migrationsFolder } from '../../src/infra/paths.js';
import { resourceKeyOf } from '../../src/core/slug.js';
import { newId } from '../../src/core/ids.js';

let h: Herald;
let admin: SessionClient;
let connectionId: string;
let queryId: string;

beforeAll(async () => {
  h = await startHerald();
  admin = await setupAdmin(h);
  connectionId = (await admin.post('/api/v1/connections').send(connectionBody('Warehouse')).expect(201)).body.id;
  queryId = (await admin.post('/api/v1/queries').send({ name: 'Base query', connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id;
});
afterAll(async () => {
  await h?.stop();
});

/** A connection's settings: creating one does not connect. */
function connectionBody(name: string): Record<string, unknown> {
  return { name, type: 'postgres', host: 'db.example.com', database: 'shop', username: 'reader', ssl_mode: 'disable' };
}

interface Kind {
  path: string;
  /** The field that names it: reports have a title. */
  nameField: 'name' | 'title';
  body(name: string): Record<string, unknown>;
}

const KINDS: Record<string, Kind> = {
  connections: { path: '/api/v1/connections', nameField: 'name', body: connectionBody },
  queries: { path: '/api/v1/queries', nameField: 'name', body: (name) => ({ name, connection_id: connectionId, sql: 'select 1 as one' }) },
  channels: { path: '/api/v1/channels', nameField: 'name', body: (name) => ({ name, type: 'webhook', settings: { url: 'https://example.com/hook' } }) },
  reports: { path: '/api/v1/reports', nameField: 'title', body: (title) => ({ title, query_id: queryId }) },
};

describe.each(Object.entries(KINDS))('%s', (_kind, kind) => {
  let id: string;
  let version: number;

  it('get a key made from the name, shown by get and list', async () => {
    const created = await admin.post(kind.path).send(kind.body('Sales EU (daily)')).expect(201);
    expect(created.body.key).toBe('sales-eu-daily');
    ({ id, version } = created.body);
    expect((await admin.get(`${kind.path}/${id}`).expect(200)).body.key).toBe('sales-eu-daily');
    const listed = (await admin.get(`${kind.path}?limit=100`).expect(200)).body.items.find((r: { id: string }) => r.id === id);
    expect(listed.key).toBe('sales-eu-daily');
  });

  it('keep the key when renamed', async () => {
    const renamed = await admin.patch(`${kind.path}/${id}`).send({ version, [kind.nameField]: 'Sales Europe' }).expect(200);
    expect(renamed.body).toMatchObject({ [kind.nameField]: 'Sales Europe', key: 'sales-eu-daily' });
    version = renamed.body.version;
  });

  it('change the key with PATCH', async () => {
    const changed = await admin.patch(`${kind.path}/${id}`).send({ version, key: 'sales-europe' }).expect(200);
    expect(changed.body).toMatchObject({ key: 'sales-europe', [kind.nameField]: 'Sales Europe' });
    version = changed.body.version;
    expect((await admin.get(`${kind.path}/${id}`).expect(200)).body.key).toBe('sales-europe');
  });

  it('refuse a key another one holds, on PATCH and on create, with 422 on key', async () => {
    const other = (await admin.post(kind.path).send(kind.body('Other one')).expect(201)).body;
    expect(other.key).toBe('other-one');
    const taken = await admin.patch(`${kind.path}/${other.id}`).send({ version: other.version, key: 'sales-europe' });
    expect(taken.status).toBe(422);
    expect(taken.body).toMatchObject({ code: 'validation.failed', errors: [expect.objectContaining({ field: 'key', code: 'validation.unique' })] });
    const chosenTaken = await admin.post(kind.path).send({ ...kind.body('Third one'), key: 'sales-europe' });
    expect(chosenTaken.status).toBe(422);
    expect(chosenTaken.body.errors).toEqual([expect.objectContaining({ field: 'key', code: 'validation.unique' })]);
    // Nothing changed: the refused PATCH kept the key, the refused create made nothing.
    expect((await admin.get(`${kind.path}/${other.id}`).expect(200)).body).toMatchObject({ key: 'other-one', version: other.version });
  });

  it('take a key chosen on create', async () => {
    const created = await admin.post(kind.path).send({ ...kind.body('Chosen'), key: 'my-own-key' }).expect(201);
    expect(created.body.key).toBe('my-own-key');
  });

  it.each(['Sales', 'sales_eu', '-sales', 'sales-', 'a'.repeat(64), ''])('refuse the malformed key %p with 422 on key', async (bad) => {
    const res = await admin.patch(`${kind.path}/${id}`).send({ version, key: bad });
    expect(res.status).toBe(422);
    // One problem per broken rule (a key too long also breaks the pattern), all on key.
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect(res.body.errors).toEqual(res.body.errors.map(() => expect.objectContaining({ field: 'key', code: expect.stringMatching(/^validation\.(format|range)$/) })));
  });
});

describe('reports, whose titles repeat', () => {
  it('give a second and third report of one title the keys -2 and -3', async () => {
    const keys: string[] = [];
    for (let i = 0; i < 3; i += 1) keys.push((await admin.post('/api/v1/reports').send({ title: 'Weekly KPIs', query_id: queryId }).expect(201)).body.key);
    expect(keys).toEqual(['weekly-kpis', 'weekly-kpis-2', 'weekly-kpis-3']);
  });

  it('give creates racing for one title different keys, none failing', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => admin.post('/api/v1/reports').send({ title: 'Race', query_id: queryId })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(results.map((r) => r.body.key as string).sort()).toEqual(['race', 'race-2', 'race-3', 'race-4', 'race-5', 'race-6', 'race-7', 'race-8']);
  });

  it('cut a long title to 63 characters, with room for the suffix', async () => {
    const title = `${'Quarterly revenue by region '.repeat(3)}and more`;
    const first = (await admin.post('/api/v1/reports').send({ title, query_id: queryId }).expect(201)).body.key as string;
    const second = (await admin.post('/api/v1/reports').send({ title, query_id: queryId }).expect(201)).body.key as string;
    expect(first).toBe('quarterly-revenue-by-region-quarterly-revenue-by-region-quarter');
    expect(second).toBe('quarterly-revenue-by-region-quarterly-revenue-by-region-quart-2');
    // Cut where a '-' falls, the key still ends in a letter or digit.
    const cutAtDash = (await admin.post('/api/v1/reports').send({ title: `${'a'.repeat(62)} b`, query_id: queryId }).expect(201)).body.key;
    expect(cutAtDash).toBe('a'.repeat(62));
  });

  it('make a key of a title without a letter or digit', async () => {
    expect((await admin.post('/api/v1/reports').send({ title: '¿¡!?', query_id: queryId }).expect(201)).body.key).toBe('x');
  });
});

describe('the migration that gave existing rows their keys', () => {
  let iso: Isolated;
  let sql: postgres.Sql;
  let before: string;

  beforeAll(async () => {
    iso = await isolate({ template: false });
    sql = postgres(iso.databaseUrl, { max: 1, onnotice: () => undefined });
    // The bundled migrations up to the one before resource keys, in a folder of their own.
    before = mkdtempSync(path.join(tmpdir(), 'herald-migrations-'));
    cpSync(migrationsFolder, before, { recursive: true });
    const journalFile = path.join(before, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
    const at = journal.entries.findIndex((e) => e.tag.endsWith('_resource_keys'));
    expect(at).toBeGreaterThan(0);
    writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  });
  afterAll(async () => {
    await sql?.end();
    await iso?.release();
    if (before) rmSync(before, { recursive: true, force: true });
  });

  it('slugs names as a create does, numbering repeats in creation order without colliding with another name\'s slug', async () => {
    await migrate(sql, before);
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const connection = newId();
    await sql`insert into connections (id, name, type, host, port, database, username, ssl_mode, created_at)
      values (${connection}, 'Sales EU (daily)', 'postgres', 'db', 5432, 'shop', 'reader', 'disable', ${at(0)})`;
    const query = newId();
    await sql`insert into queries (id, name, connection_id, sql, created_at) values (${query}, 'Crème brûlée', ${connection}, 'select 1', ${at(0)})`;
    await sql`insert into channels (id, name, type, created_at) values (${newId()}, '!!!', 'webhook', ${at(0)})`;
    const long = `${'Quarterly revenue by region '.repeat(3)}and more`;
    // Out of creation order on purpose; "Sales 2" is created before the second "Sales".
    const titles: Array<[string, number]> = [['Sales', 3], ['Sales', 1], ['Sales 2', 2], [long, 4], [long, 5], ['Sales EU (daily)', 6]];
    const reportIds = titles.map(() => newId());
    for (const [i, [title, minute]] of titles.entries()) {
      await sql`insert into reports (id, title, query_id, created_at) values (${reportIds[i]!}, ${title}, ${query}, ${at(minute)})`;
    }

    await migrate(sql);

    const keyOf = async (table: string, id?: string) => {
      const rows = await sql<Array<{ id: string; key: string }>>`select id, key from ${sql(table)}`;
      return rows.find((r) => id === undefined || r.id === id)!.key;
    };
    const sliced = 'quarterly-revenue-by-region-quarterly-revenue-by-region-quarter';
    // Each name first of its slug has the key a create makes of it (core/slug.ts).
    const firsts = { 'Sales EU (daily)': 'sales-eu-daily', 'Crème brûlée': 'creme-brulee', '!!!': 'x', [long]: sliced };
    for (const [name, key] of Object.entries(firsts)) expect(resourceKeyOf(name)).toBe(key);
    expect(await keyOf('connections')).toBe('sales-eu-daily');
    expect(await keyOf('queries')).toBe('creme-brulee');
    expect(await keyOf('channels')).toBe('x');
    expect(await Promise.all(reportIds.map((id) => keyOf('reports', id)))).toEqual([
      'sales-3', 'sales', 'sales-2', sliced, 'quarterly-revenue-by-region-quarterly-revenue-by-region-quart-2', 'sales-eu-daily',
    ]);
    const [column] = await sql<Array<{ is_nullable: string }>>`
      select is_nullable from information_schema.columns where table_name = 'reports' and column_name = 'key'`;
    expect(column!.is_nullable).toBe('NO');
  });
});
