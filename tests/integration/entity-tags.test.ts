/**
 * ETags and 304 on the reports (issue 29, point 2): a second GET with the ETag answers 304 with no
 * body; a change (PATCH, a run that becomes the last run, a deleted report) changes the tag; a tag
 * never answers 304 to another caller, another query string or another report; a weak tag, a list
 * of tags and `*` are understood; without If-None-Match, or with a stale tag, the answer is 200.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin, type SessionClient } from '../support/identity.js';
import type { HttpClient } from '../support/harness.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

let h: Herald;
let admin: SessionClient;
let editor: HttpClient;
let otherEditor: HttpClient;
let viewer: SessionClient;
let src: PostgresSource;
let queryId: string;

beforeAll(async () => {
  h = await startHerald();
  admin = await setupAdmin(h);
  const edna = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  const eli = await createSignedInUser(h, admin, { name: 'Eli', email: 'eli@example.com', role: 'editor' });
  editor = keyClient(h, (await createKey(admin, { name: 'edna', scope: 'write', owner_id: edna.userId })).token);
  otherEditor = keyClient(h, (await createKey(admin, { name: 'eli', scope: 'write', owner_id: eli.userId })).token);
  viewer = await createSignedInUser(h, admin, { name: 'Vic', email: 'vic@example.com', role: 'viewer' });
  src = await createPostgresSource(async (sql) => { await sql`create table t (id int)`; });
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  queryId = (await editor.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id as string;
});

afterAll(async () => {
  await h.stop();
  await src.drop();
});

const create = async (title: string): Promise<{ id: string; version: number }> =>
  (await editor.post('/api/v1/reports').send({ title, query_id: queryId, schedule: { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' } }).expect(201)).body;

const etagOf = (res: { headers: Record<string, unknown> }): string => {
  const tag = res.headers.etag;
  if (typeof tag !== 'string' || !/^W\/"[A-Za-z0-9_-]+"$/.test(tag)) throw new Error(`no weak ETag: ${String(tag)}`);
  return tag;
};

describe('the reports list', () => {
  it('answers 304 with no body to its own ETag, and 200 with the same tag again without it', async () => {
    await create('Alpha');
    await create('Beta');
    const first = await editor.get('/api/v1/reports').expect(200);
    const tag = etagOf(first);
    const again = await editor.get('/api/v1/reports').set('If-None-Match', tag).expect(304);
    expect(again.text ?? '').toBe('');
    expect(again.body).toEqual({});
    expect(again.headers.etag).toBe(tag);
    expect(again.headers['content-length'] ?? '0').toBe('0');
    // The same tag among others, strong-looking (W/ left out), or `*` match too (weak comparison).
    await editor.get('/api/v1/reports').set('If-None-Match', `W/"other", ${tag}`).expect(304);
    await editor.get('/api/v1/reports').set('If-None-Match', tag.slice(2)).expect(304);
    await editor.get('/api/v1/reports').set('If-None-Match', '*').expect(304);
    // A tag that is not this one: the page.
    const other = await editor.get('/api/v1/reports').set('If-None-Match', 'W/"something-else"').expect(200);
    expect(etagOf(other)).toBe(tag);
    expect(other.body.items.length).toBeGreaterThanOrEqual(2);
  });

  it('changes its tag when a report on the page changes (PATCH), becomes paused, or is deleted', async () => {
    const gamma = await create('Gamma');
    const before = etagOf(await editor.get('/api/v1/reports').expect(200));
    await editor.patch(`/api/v1/reports/${gamma.id}`).send({ version: gamma.version, description: 'changed' }).expect(200);
    const afterPatch = etagOf(await editor.get('/api/v1/reports').set('If-None-Match', before).expect(200));
    expect(afterPatch).not.toBe(before);
    await editor.post(`/api/v1/reports/${gamma.id}/pause`).expect(200);
    const afterPause = etagOf(await editor.get('/api/v1/reports').set('If-None-Match', afterPatch).expect(200));
    expect(afterPause).not.toBe(afterPatch);
    await editor.delete(`/api/v1/reports/${gamma.id}`).expect(204);
    const afterDelete = await editor.get('/api/v1/reports').set('If-None-Match', afterPause).expect(200);
    expect(etagOf(afterDelete)).not.toBe(afterPause);
    expect(afterDelete.body.items.map((r: { id: string }) => r.id)).not.toContain(gamma.id);
    // And it holds still while nothing changes.
    await editor.get('/api/v1/reports').set('If-None-Match', etagOf(afterDelete)).expect(304);
  });

  it('changes its tag when a run becomes a report\'s last run (no version of the report moves)', async () => {
    const delta = await create('Delta');
    const before = etagOf(await editor.get('/api/v1/reports').expect(200));
    await editor.post(`/api/v1/reports/${delta.id}/run`).send({}).expect(202);
    const after = await editor.get('/api/v1/reports').set('If-None-Match', before).expect(200);
    expect(etagOf(after)).not.toBe(before);
    expect(after.body.items.find((r: { id: string }) => r.id === delta.id).last_run).not.toBeNull();
  });

  it('never answers 304 to another caller, another query string or another page', async () => {
    await create('Epsilon');
    const tag = etagOf(await editor.get('/api/v1/reports').expect(200));
    // The same list for another key, another user's session: their own tags.
    const other = await otherEditor.get('/api/v1/reports').set('If-None-Match', tag).expect(200);
    expect(etagOf(other)).not.toBe(tag);
    await otherEditor.get('/api/v1/reports').set('If-None-Match', etagOf(other)).expect(304);
    expect(etagOf(await viewer.get('/api/v1/reports').set('If-None-Match', tag).expect(200))).not.toBe(tag);
    // The same request spelled out (50 is the default limit) is the same answer; another query
    // string over the same reports is not, even where it shows the same items (limit=49).
    await editor.get('/api/v1/reports?limit=50').set('If-None-Match', tag).expect(304);
    for (const qs of ['?limit=49', '?limit=2', `?query_id=${queryId}`, '?paused=false']) {
      const res = await editor.get(`/api/v1/reports${qs}`).set('If-None-Match', tag).expect(200);
      expect(etagOf(res)).not.toBe(tag);
      await editor.get(`/api/v1/reports${qs}`).set('If-None-Match', etagOf(res)).expect(304);
    }
    // The next page.
    const first = await editor.get('/api/v1/reports?limit=2').expect(200);
    const next = await editor.get(`/api/v1/reports?limit=2&cursor=${first.body.next_cursor as string}`).set('If-None-Match', etagOf(first)).expect(200);
    expect(etagOf(next)).not.toBe(etagOf(first));
  });

  it('changes the first page\'s tag when a report past it is deleted and the page no longer has a next one', async () => {
    const all = (await editor.get('/api/v1/reports?limit=200').expect(200)).body.items as Array<{ id: string }>;
    const limit = all.length - 1;
    const page = await editor.get(`/api/v1/reports?limit=${limit}`).expect(200);
    expect(page.body.next_cursor).toBeDefined();
    await editor.delete(`/api/v1/reports/${all[all.length - 1]!.id}`).expect(204);
    const after = await editor.get(`/api/v1/reports?limit=${limit}`).set('If-None-Match', etagOf(page)).expect(200);
    expect(after.body.next_cursor).toBeUndefined();
    expect(etagOf(after)).not.toBe(etagOf(page));
  });

  it('still checks access first: no credentials is 401 whatever the tag', async () => {
    const tag = etagOf(await editor.get('/api/v1/reports').expect(200));
    await h.http.get('/api/v1/reports').set('If-None-Match', tag).expect(401);
    await h.http.get('/api/v1/reports').set('If-None-Match', '*').expect(401);
  });
});

describe('one report', () => {
  it('answers 304 to its own ETag, and a new tag after a change', async () => {
    const zeta = await create('Zeta');
    const first = await editor.get(`/api/v1/reports/${zeta.id}`).expect(200);
    const tag = etagOf(first);
    const again = await editor.get(`/api/v1/reports/${zeta.id}`).set('If-None-Match', tag).expect(304);
    expect(again.text ?? '').toBe('');
    expect(again.headers.etag).toBe(tag);
    await editor.patch(`/api/v1/reports/${zeta.id}`).send({ version: zeta.version, title: 'Zeta 2' }).expect(200);
    const changed = await editor.get(`/api/v1/reports/${zeta.id}`).set('If-None-Match', tag).expect(200);
    expect(changed.body.title).toBe('Zeta 2');
    expect(etagOf(changed)).not.toBe(tag);
  });

  it('never answers 304 to another caller or for another report; a deleted report is 404 whatever the tag', async () => {
    const eta = await create('Eta');
    const theta = await create('Theta');
    const tag = etagOf(await editor.get(`/api/v1/reports/${eta.id}`).expect(200));
    await otherEditor.get(`/api/v1/reports/${eta.id}`).set('If-None-Match', tag).expect(200);
    await editor.get(`/api/v1/reports/${theta.id}`).set('If-None-Match', tag).expect(200);
    await editor.delete(`/api/v1/reports/${eta.id}`).expect(204);
    await editor.get(`/api/v1/reports/${eta.id}`).set('If-None-Match', tag).expect(404);
    await editor.get(`/api/v1/reports/${eta.id}`).set('If-None-Match', '*').expect(404);
  });
});
