/**
 * Configuration as code on real Postgres: export a populated instance, apply it to an empty one,
 * export again (byte-identical); plan and apply (per-field diffs, plan_hash, a stale plan refused),
 * prune (only what imports made), all-or-nothing when the last document fails, two applies at once
 * serialised, the security event, and the hostile YAML battery (custom tags, a billion laughs,
 * duplicate keys, merge keys, __proto__, unknown kinds and fields, dangling references, duplicate
 * names, a missing secret, a body over the limit): each refused with its fields and lines, and
 * nothing of it applied.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { CONFIG_SCHEMA } from '../../src/domain/config/model.js';

const SECRET = `whsec_${Buffer.from('c'.repeat(32)).toString('base64')}`;

let a: Herald;
let b: Herald;
let adminA: SessionClient;
let adminB: SessionClient;
let src: PostgresSource;

beforeAll(async () => {
  [a, b] = await Promise.all([
    startHerald({ env: { SVC_OUTBOUND_ALLOW: '127.0.0.1' } }),
    startHerald({ env: { SVC_OUTBOUND_ALLOW: '127.0.0.1' } }),
  ]);
  [adminA, adminB] = await Promise.all([setupAdmin(a), setupAdmin(b)]);
  src = await createPostgresSource(async (sql) => { await sql`create table sales (region text, total numeric)`; });
});
afterAll(async () => {
  await Promise.all([a.stop(), b.stop()]);
  await src.drop();
});

const counts = async (h: Herald) => {
  const [row] = await h.process.container.sql`select (select count(*)::int from connections) as connections, (select count(*)::int from queries) as queries,
    (select count(*)::int from channels) as channels, (select count(*)::int from reports) as reports, (select count(*)::int from deliveries) as deliveries`;
  return row;
};
const plan = (admin: SessionClient, yaml: string, extra: Record<string, unknown> = {}) => admin.post('/api/v1/import').send({ yaml, mode: 'plan', ...extra });
const apply = (admin: SessionClient, yaml: string, extra: Record<string, unknown> = {}) => admin.post('/api/v1/import').send({ yaml, mode: 'apply', ...extra });
const exportAll = async (admin: SessionClient, body: Record<string, unknown> = {}) => {
  const res = await admin.post('/api/v1/export').send(body);
  expect(res.status).toBe(200);
  return res.text;
};

/** A populated instance: a connection with a password, a query with a parameter, two channels, a scheduled report delivering to both. */
async function populate(admin: SessionClient) {
  const conn = (await admin.post('/api/v1/connections').send(src.connection('Sales DB')).expect(201)).body;
  const query = (await admin.post('/api/v1/queries').send({
    name: 'Sales by region', connection_id: conn.id, sql: 'select region, sum(total) as total from sales where total > {{min}} group by region',
    parameters: [{ name: 'min', type: 'number', default: 0 }],
  }).expect(201)).body;
  const hook = (await admin.post('/api/v1/channels').send({ name: 'Ops hook', type: 'webhook', settings: { url: 'http://127.0.0.1:9/hook', signing_secret: SECRET } }).expect(201)).body;
  const mail = (await admin.post('/api/v1/channels').send({ name: 'Finance mail', type: 'email', settings: { host: '127.0.0.1', port: 2525, from: 'herald@example.com' } })).body;
  const report = (await admin.post('/api/v1/reports').send({
    title: 'Daily sales', query_id: query.id, parameters: { min: 10 }, schedule: { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' },
    condition: { type: 'rows_exist' },
  }).expect(201)).body;
  await admin.post(`/api/v1/reports/${report.id}/deliveries`).send({ channel_id: hook.id, settings: { attach: 'csv' } }).expect(201);
  if (mail.id) await admin.post(`/api/v1/reports/${report.id}/deliveries`).send({ channel_id: mail.id, settings: { to: ['finance@example.com'], attach: 'xlsx' } }).expect(201);
  return { conn, query, hook, report };
}

describe('export and the round trip', () => {
  it('exports deterministically, applies to an empty instance, and exports it again byte for byte', async () => {
    await populate(adminA);
    const first = await exportAll(adminA);
    expect(await exportAll(adminA)).toBe(first);
    expect(first).toContain('kind: Report');
    expect(first).toContain('name: sales-db');
    expect(first).toContain('query: sales-by-region');
    expect(first).toContain('configured: true');
    expect(first).not.toContain(SECRET);
    expect(first).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/); // no ids
    expect(first.indexOf('kind: Connection')).toBeLessThan(first.indexOf('kind: Query'));
    expect(first.indexOf('kind: Query')).toBeLessThan(first.indexOf('kind: Report'));

    // Secrets are never exported: the other instance gets them from its environment.
    process.env.HERALD_TEST_DB_PASSWORD = String((src.connection('x') as { password?: string }).password ?? 'unused');
    process.env.HERALD_TEST_HOOK_SECRET = SECRET;
    const forB = first
      .replace(/password:\n\s+configured: true/, 'password: ${env:HERALD_TEST_DB_PASSWORD}')
      .replace(/signing_secret:\n\s+configured: true/, 'signing_secret: ${env:HERALD_TEST_HOOK_SECRET}');
    const planned = await plan(adminB, forB);
    expect(planned.status).toBe(200);
    expect(planned.body.summary).toMatchObject({ create: (first.match(/^kind:/gm) ?? []).length, update: 0, delete: 0 });
    expect(await counts(b)).toMatchObject({ connections: 0, queries: 0, reports: 0 });
    const applied = await apply(adminB, forB);
    expect(applied.status).toBe(200);
    expect(applied.body.applied).toBe(true);
    expect(await exportAll(adminB)).toBe(first);
    // The same YAML again: nothing to do.
    const again = await plan(adminB, forB);
    expect(again.body.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    expect(again.body.changes.every((c: { action: string }) => c.action === 'unchanged')).toBe(true);
  });

  it('exports chosen resources with what they refer to, and only them without', async () => {
    const only = await exportAll(adminA, { keys: ['report/daily-sales'] });
    expect(only).toContain('kind: Connection');
    expect(only).toContain('kind: Report');
    const alone = await exportAll(adminA, { keys: ['report/daily-sales'], include_dependencies: false });
    expect(alone.match(/^kind: \w+/gm)).toEqual(['kind: Report']);
    const kinds = await exportAll(adminA, { kinds: ['channel'] });
    expect([...new Set(kinds.match(/^kind: \w+/gm))]).toEqual(['kind: Channel']);
  });

  it('serves the JSON Schema of the documents', async () => {
    const res = await a.http.get('/api/v1/config.schema.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/schema\+json/);
    expect(JSON.parse(res.text)).toEqual(JSON.parse(JSON.stringify(CONFIG_SCHEMA)));
  });
});

describe('plan and apply', () => {
  const doc = (schedule: string, extra = '') => `apiVersion: herald/v1
kind: Query
metadata:
  name: planned-query
spec:
  name: Planned query
  connection: sales-db
  sql: select 1 as one
---
apiVersion: herald/v1
kind: Report
metadata:
  name: planned-report
spec:
  title: Planned report
  query: planned-query
  schedule:
    cron: '${schedule}'
    timezone: UTC
${extra}`;

  it('shows a field-level diff, applies with its plan_hash, and refuses a stale one', async () => {
    const first = await apply(adminA, doc('0 7 * * *'));
    expect([first.status, first.body.detail ?? first.body.title ?? null]).toEqual([200, null]);
    // The answer of an apply names what it created by id (a plan's null is for what does not exist yet).
    const created = first.body.changes.filter((c: { action: string }) => c.action === 'create') as Array<{ kind: string; name: string; id: string | null }>;
    expect(created.length).toBeGreaterThan(0);
    for (const c of created) {
      expect(c.id).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
      expect((await adminA.get(`/api/v1/${c.kind === 'query' ? 'queries' : `${c.kind}s`}/${c.id}`)).body.key).toBe(c.name);
    }
    const changed = await plan(adminA, doc('30 7 * * *'));
    expect(changed.status).toBe(200);
    const report = changed.body.changes.find((c: { kind: string }) => c.kind === 'report');
    expect(report).toMatchObject({ action: 'update', name: 'planned-report', diff: [{ path: 'spec.schedule', before: { cron: '0 7 * * *', timezone: 'UTC' }, after: { cron: '30 7 * * *', timezone: 'UTC' } }] });
    expect(changed.body.changes.find((c: { kind: string }) => c.kind === 'query')).toMatchObject({ action: 'unchanged', diff: [] });
    // The state moves (a change through the API) after the plan: its hash no longer applies.
    const stored = (await adminA.get(`/api/v1/reports/${report.id}`)).body;
    await adminA.patch(`/api/v1/reports/${report.id}`).send({ description: 'changed by hand', version: stored.version }).expect(200);
    const stale = await apply(adminA, doc('30 7 * * *'), { plan_hash: changed.body.plan_hash });
    expect([stale.status, stale.body.code]).toEqual([409, 'import.plan_stale']);
    const fresh = await plan(adminA, doc('30 7 * * *'));
    const done = await apply(adminA, doc('30 7 * * *'), { plan_hash: fresh.body.plan_hash });
    expect(done.status).toBe(200);
    expect(done.body.plan_hash).toBe(fresh.body.plan_hash);
    expect((await adminA.get(`/api/v1/reports/${report.id}`)).body.schedule.cron).toBe('30 7 * * *');
    const events = await a.process.container.sql`select details from security_events where type = 'config.applied' order by occurred_at`;
    expect(events.at(-1)!.details).toMatchObject({ source: 'import', updated: 1, created: 0 });
  });

  it('reads only what a document says: one that leaves defaults out plans unchanged once applied', async () => {
    const yaml = `apiVersion: herald/v1
kind: Query
metadata: {name: terse-query}
spec:
  name: Terse query
  connection: sales-db
  sql: select 1 as one where {{n}} > 0
  parameters: [{name: n, type: number}]
---
apiVersion: herald/v1
kind: Report
metadata: {name: terse-report}
spec:
  title: Terse report
  query: terse-query
  parameters: {n: 1}
  deliveries: [{channel: ops-hook}, {channel: ops-hook, settings: {attach: csv}}]
`;
    expect((await apply(adminA, yaml)).body.summary).toMatchObject({ create: 2 });
    const again = await plan(adminA, yaml);
    expect(again.body.summary).toMatchObject({ create: 0, update: 0, unchanged: 2 });
    // A value it does say is compared: the second delivery's attachment.
    const changed = await plan(adminA, yaml.replace('attach: csv', 'attach: xlsx'));
    expect(changed.body.changes.find((c: { kind: string }) => c.kind === 'report').diff.map((f: { path: string }) => f.path)).toEqual(['spec.deliveries']);
  });

  it('prunes only what imports created, and never what was made through the API', async () => {
    const two = `apiVersion: herald/v1
kind: Channel
metadata: {name: pruned-one}
spec: {name: Pruned one, type: webhook, settings: {url: 'http://127.0.0.1:9/one', signing_secret: '${SECRET}'}}
---
apiVersion: herald/v1
kind: Channel
metadata: {name: kept-two}
spec: {name: Kept two, type: webhook, settings: {url: 'http://127.0.0.1:9/two', signing_secret: '${SECRET}'}}
`;
    expect((await apply(adminA, two)).status).toBe(200);
    await adminA.post('/api/v1/channels').send({ name: 'Made by hand', type: 'webhook', settings: { url: 'http://127.0.0.1:9/hand', signing_secret: SECRET } }).expect(201);
    const one = two.split('---\n')[1]!;
    const planned = await plan(adminA, one, { prune: true });
    const deletes = planned.body.changes.filter((c: { action: string }) => c.action === 'delete').map((c: { name: string }) => c.name);
    expect(deletes).toContain('pruned-one');
    expect(deletes).not.toContain('made-by-hand');
    expect(deletes).not.toContain('ops-hook'); // made through the API by populate()
    expect((await apply(adminA, one, { prune: true })).status).toBe(200);
    const names = (await adminA.get('/api/v1/channels?limit=100')).body.items.map((c: { name: string }) => c.name);
    expect(names).toEqual(expect.arrayContaining(['Kept two', 'Made by hand', 'Ops hook']));
    expect(names).not.toContain('Pruned one');
  });

  it('applies everything or nothing: a failure in the last document leaves no trace of the others', async () => {
    const before = await counts(a);
    const yaml = `${doc('0 6 * * *').replace(/planned-/g, 'atomic-').replace('Planned', 'Atomic').replace('Planned', 'Atomic')}---
apiVersion: herald/v1
kind: Report
metadata: {name: atomic-broken}
spec: {title: Broken, query: atomic-query, schedule: {cron: '0 0 30 2 *', timezone: UTC}}
`;
    // The plan is good (the first two documents would be made); the reports service refuses the last one's schedule.
    expect((await plan(adminA, yaml)).body.summary).toMatchObject({ create: 3 });
    const res = await apply(adminA, yaml);
    expect([res.status, res.body.errors?.[0]?.field, res.body.errors?.[0]?.line]).toEqual([422, 'documents.2.spec.schedule.cron', 24]);
    expect(await counts(a)).toEqual(before);
    expect((await a.process.container.sql`select count(*)::int as n from queries where name = 'Atomic query'`)[0]!.n).toBe(0);
  });

  it('serialises two applies at once: each resource is made once', async () => {
    const yaml = doc('0 5 * * *').replace(/planned-/g, 'twice-').replace('Planned query', 'Twice query').replace('Planned report', 'Twice report');
    const [x, y] = await Promise.all([apply(adminA, yaml), apply(adminA, yaml)]);
    expect([x.status, y.status]).toEqual([200, 200]);
    const summaries = [x.body.summary, y.body.summary].sort((p, q) => q.create - p.create);
    expect(summaries[0]).toMatchObject({ create: 2 });
    expect(summaries[1]).toMatchObject({ create: 0, unchanged: 2 });
    expect((await a.process.container.sql`select count(*)::int as n from reports where title = 'Twice report'`)[0]!.n).toBe(1);
  });
});

describe('hostile and broken input', () => {
  const header = (kind: string, name: string) => `apiVersion: herald/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;
  const refused = async (yaml: string) => {
    const before = await counts(a);
    const res = await apply(adminA, yaml);
    expect(await counts(a)).toEqual(before);
    return res;
  };

  it('refuses custom tags, a billion laughs, duplicate keys and merge keys, saying where', async () => {
    const tag = await refused(`${header('Channel', 'tagged')}spec: !!js/function 'function () {}'\n`);
    expect([tag.status, tag.body.code]).toEqual([422, 'validation.failed']);
    expect(tag.body.errors[0]).toMatchObject({ field: 'yaml', line: 5 });
    const laughs = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [i, c] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) laughs.push(`${c}: &${c} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`);
    const lol = await refused(`${laughs.join('\n')}\n`);
    expect(lol.status).toBe(422);
    expect(lol.body.errors[0].message).toMatch(/alias|too large/);
    const dup = await refused(`${header('Channel', 'dup')}spec:\n  name: One\n  name: Two\n`);
    expect(dup.body.errors[0]).toMatchObject({ field: 'yaml', line: 7 });
    expect(dup.body.errors[0].message).toMatch(/duplicated mapping key/);
    const merge = await refused(`${header('Channel', 'merged')}spec:\n  <<: {name: X}\n  type: webhook\n  settings: {}\n`);
    expect(merge.body.errors[0].message).toMatch(/merge keys/);
  });

  it('refuses __proto__ and unknown kinds and fields as unknown, with the document and line', async () => {
    const proto = await refused(`${header('Channel', 'proto')}spec:\n  name: P\n  type: webhook\n  settings: {url: 'http://127.0.0.1:9/p'}\n  __proto__: {polluted: true}\n`);
    expect(proto.status).toBe(422);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(proto.body.errors).toEqual([expect.objectContaining({ field: 'documents.0.spec.__proto__', code: 'validation.unknown_field', line: 9 })]);
    const kind = await refused(`${header('Dashboard', 'nope')}spec: {}\n`);
    expect(kind.body.errors[0]).toMatchObject({ field: 'documents.0.kind', line: 2 });
    const field = await refused(`${header('Query', 'q-unknown')}spec:\n  name: Q\n  connection: sales-db\n  sql: select 1\n  colour: blue\n`);
    expect(field.body.errors[0]).toMatchObject({ field: 'documents.0.spec.colour', code: 'validation.unknown_field', line: 9 });
  });

  it('refuses dangling references, duplicate names and missing secrets, per document', async () => {
    const dangling = await refused(`${header('Report', 'dangling')}spec:\n  title: D\n  query: no-such-query\n`);
    expect(dangling.body.errors[0]).toMatchObject({ field: 'documents.0.spec.query', line: 7 });
    const twice = await refused(`${header('Channel', 'same')}spec: {name: S1, type: webhook, settings: {url: 'http://127.0.0.1:9/s'}}\n---\n${header('Channel', 'same')}spec: {name: S2, type: webhook, settings: {url: 'http://127.0.0.1:9/s'}}\n`);
    expect(twice.body.errors[0]).toMatchObject({ field: 'documents.1.metadata.name', code: 'validation.unique' });
    delete process.env.HERALD_TEST_UNSET;
    const missing = await refused(`${header('Channel', 'no-secret')}spec:\n  name: No secret\n  type: webhook\n  settings:\n    url: 'http://127.0.0.1:9/n'\n    signing_secret: \${env:HERALD_TEST_UNSET}\n`);
    expect(missing.body.errors[0]).toMatchObject({ field: 'documents.0.spec.settings.signing_secret', code: 'validation.required', line: 10 });
    const kept = await refused(`${header('Channel', 'kept-nothing')}spec:\n  name: Kept nothing\n  type: webhook\n  settings:\n    url: 'http://127.0.0.1:9/k'\n    signing_secret: {configured: true}\n`);
    expect(kept.body.errors[0].message).toMatch(/none is stored/);
    // A document may not read Herald's own settings, nor files outside /run/secrets: a channel would carry them out.
    const own = await refused(`${header('Channel', 'own-key')}spec:\n  name: Own key\n  type: webhook\n  settings:\n    url: 'http://127.0.0.1:9/k'\n    signing_secret: \${env:SVC_SECRET_KEY}\n`);
    expect(own.body.errors[0]).toMatchObject({ field: 'documents.0.spec.settings.signing_secret', code: 'validation.required' });
    expect(own.body.errors[0].message).toMatch(/Herald's own settings/);
    const file = await refused(`${header('Channel', 'etc-file')}spec:\n  name: Etc file\n  type: webhook\n  settings:\n    url: 'http://127.0.0.1:9/k'\n    signing_secret: \${file:/run/secrets/../../etc/passwd}\n`);
    expect(file.body.errors[0].message).toMatch(/outside the folders secrets may be read from/);
  });

  it('refuses a body over the size limit', async () => {
    const res = await adminA.post('/api/v1/import').send({ yaml: `# ${'x'.repeat(1_100_000)}\n`, mode: 'plan' });
    expect(res.status).toBe(413);
  });
});
