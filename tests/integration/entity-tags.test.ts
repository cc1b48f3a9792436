/**
 * ETags and 304 (issue 29, point 2). On the reports, connections, queries, channels, users and runs, tags
 * made from the store's versions of what the answer shows: a second GET with the ETag answers 304
 * with no body, without reading or building the answer; every change to what it shows (through the
 * API, or without a version: a schema refresh, a channel's health after a delivery, a sign-in, a
 * configuration mark, a run's end, a delivery attempt, a run that becomes a report's last run, a
 * deleted row) changes the tag; a tag never answers 304 to another caller, another query string
 * or another resource; a weak tag, a list of tags and `*` are understood; without If-None-Match,
 * or with a stale tag, the answer is 200. On every other read whose contract declares 304, tags
 * made from the answer's content, with the same rules; an operation that declares no 304 never
 * answers one and carries no tag. Answers kept by those tags in each API process
 * (SVC_ANSWER_CACHE_MB): the same bytes again while nothing changed, and a change made through
 * another API process shown by the very next read.
 */
import request from 'supertest';
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin, signIn, type SessionClient } from '../support/identity.js';
import type { HttpClient } from '../support/harness.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';
import { waitForRun } from '../support/runs.js';
import { operationMeta } from '../../src/generated/operations.js';
import postgres from 'postgres';

let h: Herald;
let admin: SessionClient;
let editor: HttpClient;
let editorToken: string;
let otherEditor: HttpClient;
let viewer: SessionClient & { password: string };
let src: PostgresSource;
let queryId: string;
let connectionId: string;
let hook: HttpPeer;

beforeAll(async () => {
  hook = await httpPeer();
  h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_OUTBOUND_ALLOW: '127.0.0.1' } });
  admin = await setupAdmin(h);
  const edna = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  const eli = await createSignedInUser(h, admin, { name: 'Eli', email: 'eli@example.com', role: 'editor' });
  editorToken = (await createKey(admin, { name: 'edna', scope: 'write', owner_id: edna.userId })).token;
  editor = keyClient(h, editorToken);
  otherEditor = keyClient(h, (await createKey(admin, { name: 'eli', scope: 'write', owner_id: eli.userId })).token);
  viewer = await createSignedInUser(h, admin, { name: 'Vic', email: 'vic@example.com', role: 'viewer' });
  src = await createPostgresSource(async (sql) => { await sql`create table t (id int)`; });
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  queryId = (await editor.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id as string;
});

afterAll(async () => {
  await h.stop();
  await src.drop();
  await hook.close();
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
    const runId = (await editor.post(`/api/v1/reports/${delta.id}/run`).send({}).expect(202)).body.id as string;
    const after = await editor.get('/api/v1/reports').set('If-None-Match', before).expect(200);
    expect(etagOf(after)).not.toBe(before);
    expect(after.body.items.find((r: { id: string }) => r.id === delta.id).last_run).not.toBeNull();
    // And again when that run ends (its status and end are part of the tag).
    await waitForRun(editor, runId);
    const ended = await editor.get('/api/v1/reports').set('If-None-Match', etagOf(after));
    const shown = ended.status === 200 ? ended.body.items.find((r: { id: string }) => r.id === delta.id).last_run : undefined;
    expect({ status: ended.status, last: shown?.status }).toEqual({ status: 200, last: 'success' });
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

describe('every read that declares 304', () => {
  /** Each conditional operation but the reports', with an address to read it at and who may. */
  async function addresses(): Promise<Record<string, { url: string; as: HttpClient }>> {
    const channelId = (await admin.post('/api/v1/channels').send({ name: 'Tag hook', type: 'webhook', settings: { url: `${hook.url}/tags` } }).expect(201)).body.id as string;
    const report = (await editor.post('/api/v1/reports').send({ title: 'Tagged', query_id: queryId }).expect(201)).body as { id: string };
    await editor.post(`/api/v1/reports/${report.id}/deliveries`).send({ channel_id: channelId, settings: {} }).expect(201);
    const runId = (await editor.post(`/api/v1/reports/${report.id}/run`).send({}).expect(202)).body.id as string;
    await waitForRun(editor, runId);
    const linkId = (await editor.post('/api/v1/links').send({ run_id: runId, format: 'csv' }).expect(201)).body.id as string;
    const me = (await admin.get('/api/v1/me').expect(200)).body as { id: string };
    return {
      getConfigSchema: { url: '/api/v1/config.schema.json', as: h.http },
      getGitopsStatus: { url: '/api/v1/gitops/status', as: admin },
      getAiStatus: { url: '/api/v1/ai/status', as: viewer },
      getSetupStatus: { url: '/api/v1/setup/status', as: h.http },
      getSignInMethods: { url: '/api/v1/auth/methods', as: h.http },
      getMe: { url: '/api/v1/me', as: viewer },
      listMySessions: { url: '/api/v1/me/sessions', as: viewer },
      listMyPasskeys: { url: '/api/v1/me/passkeys', as: viewer },
      listUsers: { url: '/api/v1/users', as: admin },
      getUser: { url: `/api/v1/users/${me.id}`, as: admin },
      listApiKeys: { url: '/api/v1/api-keys', as: admin },
      getSettings: { url: '/api/v1/settings', as: admin },
      getOidcSettings: { url: '/api/v1/settings/oidc', as: admin },
      getAlertSettings: { url: '/api/v1/settings/alerts', as: admin },
      getAiSettings: { url: '/api/v1/settings/ai', as: admin },
      listSecurityEvents: { url: '/api/v1/security-events', as: admin },
      getAbout: { url: '/api/v1/system/about', as: admin },
      getStorage: { url: '/api/v1/system/storage', as: admin },
      listSystemProblems: { url: '/api/v1/system/problems', as: admin },
      listPlugins: { url: '/api/v1/plugins', as: viewer },
      listConnections: { url: '/api/v1/connections', as: editor },
      getConnection: { url: `/api/v1/connections/${connectionId}`, as: editor },
      getConnectionSchema: { url: `/api/v1/connections/${connectionId}/schema`, as: editor },
      listQueries: { url: '/api/v1/queries', as: editor },
      getQuery: { url: `/api/v1/queries/${queryId}`, as: editor },
      listQueryVersions: { url: `/api/v1/queries/${queryId}/versions`, as: editor },
      getQueryVersion: { url: `/api/v1/queries/${queryId}/versions/1`, as: editor },
      listChannels: { url: '/api/v1/channels', as: editor },
      getChannel: { url: `/api/v1/channels/${channelId}`, as: editor },
      listChannelAttempts: { url: `/api/v1/channels/${channelId}/attempts`, as: admin },
      listLinks: { url: '/api/v1/links', as: editor },
      getLink: { url: `/api/v1/links/${linkId}`, as: editor },
      listDeliveries: { url: `/api/v1/reports/${report.id}/deliveries`, as: editor },
      listRuns: { url: '/api/v1/runs', as: editor },
      getRun: { url: `/api/v1/runs/${runId}`, as: editor },
      listNotifications: { url: '/api/v1/notifications', as: viewer },
      getDashboard: { url: '/api/v1/dashboard', as: viewer },
    };
  }
  /** A problem id exists only once something went wrong: its list is read above, and the one is not. */
  const unreachable = new Set(['getSystemProblem', 'listReports', 'getReport']);

  it('tags every one: 304 with no body to its own tag, among others and to `*`; 200 again to a stale one', async () => {
    const at = await addresses();
    const conditional = Object.entries(operationMeta).filter(([, m]) => m.conditional).map(([id]) => id).filter((id) => !unreachable.has(id));
    expect(Object.keys(at).sort()).toEqual(conditional.sort());
    for (const [operationId, { url, as }] of Object.entries(at)) {
      const first = await as.get(url);
      expect({ operationId, status: first.status }).toEqual({ operationId, status: 200 });
      const tag = etagOf(first);
      const again = await as.get(url).set('If-None-Match', tag);
      expect({ operationId, status: again.status, text: again.text ?? '', etag: again.headers.etag }).toEqual({ operationId, status: 304, text: '', etag: tag });
      await as.get(url).set('If-None-Match', `W/"other", ${tag}`).expect(304);
      await as.get(url).set('If-None-Match', '*').expect(304);
      const stale = await as.get(url).set('If-None-Match', 'W/"stale"');
      expect({ operationId, status: stale.status, etag: stale.headers.etag }).toEqual({ operationId, status: 200, etag: tag });
    }
    // HEAD: the same tag and 304, no body.
    const tag = etagOf(await h.http.get('/api/v1/auth/methods').expect(200));
    const head = await request(h.process.app!).head('/api/v1/auth/methods').expect(200);
    expect({ etag: head.headers.etag, text: head.text ?? '' }).toEqual({ etag: tag, text: '' });
    await request(h.process.app!).head('/api/v1/auth/methods').set('If-None-Match', tag).expect(304);
  });

  it('a change gives the list and the single resource new tags', async () => {
    const one = await editor.get(`/api/v1/connections/${connectionId}`).expect(200);
    const list = await editor.get('/api/v1/connections').expect(200);
    await editor.get(`/api/v1/connections/${connectionId}`).set('If-None-Match', etagOf(one)).expect(304);
    await admin.patch(`/api/v1/connections/${connectionId}`).send({ version: one.body.version, name: 'Src renamed' }).expect(200);
    const changed = await editor.get(`/api/v1/connections/${connectionId}`).set('If-None-Match', etagOf(one)).expect(200);
    expect(changed.body.name).toBe('Src renamed');
    expect(etagOf(changed)).not.toBe(etagOf(one));
    const listed = await editor.get('/api/v1/connections').set('If-None-Match', etagOf(list)).expect(200);
    expect(etagOf(listed)).not.toBe(etagOf(list));
    // A run that ends changes the runs list's tag.
    const runs = await editor.get('/api/v1/runs').expect(200);
    const report = (await editor.post('/api/v1/reports').send({ title: 'Another', query_id: queryId }).expect(201)).body as { id: string };
    await waitForRun(editor, (await editor.post(`/api/v1/reports/${report.id}/run`).send({}).expect(202)).body.id as string);
    expect(etagOf(await editor.get('/api/v1/runs').set('If-None-Match', etagOf(runs)).expect(200))).not.toBe(etagOf(runs));
  });

  it('never answers 304 to another caller, even where the content is the same, nor for another query string', async () => {
    const mine = await editor.get('/api/v1/plugins').expect(200);
    const theirs = await otherEditor.get('/api/v1/plugins').set('If-None-Match', etagOf(mine)).expect(200);
    expect(theirs.body).toEqual(mine.body);
    expect(etagOf(theirs)).not.toBe(etagOf(mine));
    await editor.get('/api/v1/runs?limit=49').set('If-None-Match', etagOf(await editor.get('/api/v1/runs').expect(200))).expect(200);
    // Access is checked first.
    await h.http.get('/api/v1/connections').set('If-None-Match', '*').expect(401);
  });

  it('an operation that declares no 304 carries no tag and never answers one', async () => {
    const runId = ((await editor.get('/api/v1/runs?limit=1').expect(200)).body.items as Array<{ id: string }>)[0]!.id;
    for (const url of [`/api/v1/runs/${runId}/result?format=json`, '/health/ready']) {
      const res = await editor.get(url).set('If-None-Match', '*');
      expect({ url, status: res.status, etag: res.headers.etag }).toEqual({ url, status: 200, etag: undefined });
    }
    // Nor does an answer other than 200.
    const missing = await editor.get('/api/v1/runs/00000000-0000-7000-8000-000000000000').set('If-None-Match', '*');
    expect({ status: missing.status, etag: missing.headers.etag }).toEqual({ status: 404, etag: undefined });
  });
});

describe('connections, queries, channels, users and runs: tags from the store\'s row stamps', () => {
  let store: postgres.Sql;
  beforeAll(() => { store = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined }); });
  afterAll(async () => { await store.end(); });

  /** The tag now, asked with `tag`: 304 (then the same tag) or 200 with another. */
  const retag = async (as: HttpClient, url: string, tag: string) => {
    const res = await as.get(url).set('If-None-Match', tag);
    expect([200, 304]).toContain(res.status);
    return { status: res.status, tag: etagOf(res), body: res.body as Record<string, unknown> };
  };

  it('a schema refresh (no version moves) changes the connection\'s tags; nothing else does', async () => {
    const one = await editor.get(`/api/v1/connections/${connectionId}`).expect(200);
    const list = await editor.get('/api/v1/connections').expect(200);
    expect(await retag(editor, `/api/v1/connections/${connectionId}`, etagOf(one))).toMatchObject({ status: 304, tag: etagOf(one) });
    // Testing it writes nothing of it: its list's tag holds.
    await admin.post(`/api/v1/connections/${connectionId}/test`).expect(200);
    expect((await retag(editor, '/api/v1/connections', etagOf(list))).status).toBe(304);
    await admin.post(`/api/v1/connections/${connectionId}/schema/refresh`).expect(200);
    const after = await retag(editor, `/api/v1/connections/${connectionId}`, etagOf(one));
    expect(after.status).toBe(200);
    expect(after.body.version).toBe(one.body.version);
    expect(after.body.schema_refreshed_at).not.toBe(one.body.schema_refreshed_at);
    expect((await retag(editor, '/api/v1/connections', etagOf(list))).status).toBe(200);
  });

  it('a configuration mark (the view\'s `managed`) changes the tags of its resource, and its going changes them back', async () => {
    const url = `/api/v1/queries/${queryId}`;
    const first = await editor.get(url).expect(200);
    const list = await editor.get('/api/v1/queries').expect(200);
    expect(first.body.managed).toBeUndefined();
    await store`insert into config_managed (kind, resource_id, managed_by, path) values ('query', ${queryId}, 'gitops', 'queries.yaml')`;
    const marked = await retag(editor, url, etagOf(first));
    expect(marked.status).toBe(200);
    expect(marked.body.managed).toMatchObject({ by: 'gitops', path: 'queries.yaml' });
    const markedList = await retag(editor, '/api/v1/queries', etagOf(list));
    expect(markedList.status).toBe(200);
    await store`update config_managed set path = 'moved.yaml' where kind = 'query' and resource_id = ${queryId}`;
    expect(await retag(editor, url, marked.tag)).toMatchObject({ status: 200, body: { managed: { path: 'moved.yaml' } } });
    await store`delete from config_managed where kind = 'query' and resource_id = ${queryId}`;
    // The same rows as at first: the first tag again.
    expect(await retag(editor, url, etagOf(first))).toMatchObject({ status: 304, tag: etagOf(first) });
    expect((await retag(editor, '/api/v1/queries', markedList.tag)).status).toBe(200);
  });

  it('a delivery changes its channel\'s tags (health, last attempt) and its run\'s (the attempt), then they hold', async () => {
    const channel = (await admin.post('/api/v1/channels').send({ name: 'Stamped hook', type: 'webhook', settings: { url: `${hook.url}/stamped` } }).expect(201)).body as { id: string; version: number };
    const report = (await editor.post('/api/v1/reports').send({ title: 'Stamped', query_id: queryId }).expect(201)).body as { id: string };
    await editor.post(`/api/v1/reports/${report.id}/deliveries`).send({ channel_id: channel.id, settings: {} }).expect(201);
    const url = `/api/v1/channels/${channel.id}`;
    const before = await editor.get(url).expect(200);
    const list = await editor.get('/api/v1/channels').expect(200);
    expect(before.body.health).toBe('unknown');
    const runId = (await editor.post(`/api/v1/reports/${report.id}/run`).send({}).expect(202)).body.id as string;
    const pending = await editor.get(`/api/v1/runs/${runId}`).expect(200);
    const run = await waitForRun(editor, runId, (r) => r.status === 'success' && (r.delivery_attempts as Array<{ status: string }>).every((a) => a.status === 'sent'));
    const after = await retag(editor, url, etagOf(before));
    expect(after).toMatchObject({ status: 200, body: { health: 'healthy', version: channel.version } });
    expect((await retag(editor, '/api/v1/channels', etagOf(list))).status).toBe(200);
    expect(await retag(editor, url, after.tag)).toMatchObject({ status: 304 });
    // The run: ended and its attempt sent since the first read; then it holds.
    const ended = await retag(editor, `/api/v1/runs/${runId}`, etagOf(pending));
    expect(ended).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await retag(editor, `/api/v1/runs/${runId}`, ended.tag)).toMatchObject({ status: 304, tag: ended.tag });
    // A write to the attempt alone (the run's row untouched) is a change of what the run shows.
    const attemptId = (run.delivery_attempts as Array<{ id: string }>)[0]!.id;
    await store`update delivery_attempts set peer_message_id = 'stamped-1' where id = ${attemptId}`;
    const changed = await retag(editor, `/api/v1/runs/${runId}`, ended.tag);
    expect(changed.status).toBe(200);
    expect((changed.body.delivery_attempts as Array<{ peer_message_id: string }>)[0]!.peer_message_id).toBe('stamped-1');
  });

  it('the runs list: its filters and pages are their own answers, a new run changes them, a bad cursor is still 422', async () => {
    const report = (await editor.post('/api/v1/reports').send({ title: 'Listed runs', query_id: queryId }).expect(201)).body as { id: string };
    for (let i = 0; i < 3; i += 1) await waitForRun(editor, (await editor.post(`/api/v1/reports/${report.id}/run`).send({}).expect(202)).body.id as string);
    const mine = `/api/v1/runs?report_id=${report.id}`;
    const all = await editor.get('/api/v1/runs').expect(200);
    const filtered = await editor.get(mine).expect(200);
    expect(filtered.body.items).toHaveLength(3);
    expect(etagOf(filtered)).not.toBe(etagOf(all));
    expect((await retag(editor, mine, etagOf(all))).status).toBe(200);
    expect((await retag(editor, mine, etagOf(filtered))).status).toBe(304);
    for (const qs of ['&status=success', '&trigger=manual', '&status=failed', '&limit=2']) {
      const res = await editor.get(`${mine}${qs}`).set('If-None-Match', etagOf(filtered)).expect(200);
      await editor.get(`${mine}${qs}`).set('If-None-Match', etagOf(res)).expect(304);
    }
    const first = await editor.get(`${mine}&limit=2`).expect(200);
    const nextUrl = `${mine}&limit=2&cursor=${first.body.next_cursor as string}`;
    const next = await editor.get(nextUrl).expect(200);
    expect(next.body.items).toHaveLength(1);
    await editor.get(nextUrl).set('If-None-Match', etagOf(next)).expect(304);
    // Another run: the first page (newest first) and the unfiltered list change; the last page does not.
    await waitForRun(editor, (await editor.post(`/api/v1/reports/${report.id}/run`).send({}).expect(202)).body.id as string);
    expect((await retag(editor, `${mine}&limit=2`, etagOf(first))).status).toBe(200);
    expect((await retag(editor, '/api/v1/runs', etagOf(all))).status).toBe(200);
    expect((await retag(editor, nextUrl, etagOf(next))).status).toBe(304);
    const bad = await editor.get('/api/v1/runs?cursor=bm90LWEtY3Vyc29y').set('If-None-Match', '*').expect(422);
    expect(bad.body.code).toBe('validation.failed');
    await editor.get('/api/v1/queries?cursor=bm90LWEtY3Vyc29y').set('If-None-Match', '*').expect(422);
    await editor.get('/api/v1/channels?cursor=bm90LWEtY3Vyc29y').set('If-None-Match', '*').expect(422);
  });

  it('pages of connections, queries and channels: the next page is its own, a deleted row changes its page, a deleted resource is 404', async () => {
    for (const name of ['Paged A', 'Paged B', 'Paged C']) {
      await admin.post('/api/v1/channels').send({ name, type: 'webhook', settings: { url: `${hook.url}/paged` } }).expect(201);
      await editor.post('/api/v1/queries').send({ name, connection_id: connectionId, sql: 'select 2 as two' }).expect(201);
    }
    for (const kind of ['channels', 'queries']) {
      const first = await editor.get(`/api/v1/${kind}?limit=2`).expect(200);
      const nextUrl = `/api/v1/${kind}?limit=2&cursor=${first.body.next_cursor as string}`;
      const next = await editor.get(nextUrl).set('If-None-Match', etagOf(first)).expect(200);
      expect(etagOf(next)).not.toBe(etagOf(first));
      await editor.get(nextUrl).set('If-None-Match', etagOf(next)).expect(304);
      // The first item of the next page goes: that page changes, the first one does not.
      const gone = (next.body.items as Array<{ id: string }>)[0]!.id;
      await admin.delete(`/api/v1/${kind}/${gone}`).expect(204);
      expect((await retag(editor, nextUrl, etagOf(next))).status).toBe(200);
      expect((await retag(editor, `/api/v1/${kind}?limit=2`, etagOf(first))).status).toBe(304);
      // Its tag no longer answers anything but 404.
      await editor.get(`/api/v1/${kind}/${gone}`).set('If-None-Match', '*').expect(404);
    }
    const other = (await admin.post('/api/v1/connections').send(src.connection('Gone soon')).expect(201)).body as { id: string };
    const tag = etagOf(await editor.get(`/api/v1/connections/${other.id}`).expect(200));
    await admin.delete(`/api/v1/connections/${other.id}`).expect(204);
    await editor.get(`/api/v1/connections/${other.id}`).set('If-None-Match', tag).expect(404);
  });

  it('a sign-in (no version moves) changes the member\'s tags, seen by an admin with the details and by a viewer without', async () => {
    const url = `/api/v1/users/${viewer.userId}`;
    const one = await admin.get(url).expect(200);
    const list = await admin.get('/api/v1/users').expect(200);
    const asViewer = await viewer.get(url).expect(200);
    expect(etagOf(asViewer)).not.toBe(etagOf(one));
    await admin.get(url).set('If-None-Match', etagOf(one)).expect(304);
    await signIn(h, 'vic@example.com', viewer.password);
    const after = await retag(admin, url, etagOf(one));
    expect(after.status).toBe(200);
    expect(after.body.version).toBe(one.body.version);
    expect(after.body.last_sign_in_at).not.toBe(one.body.last_sign_in_at);
    expect((await retag(admin, '/api/v1/users', etagOf(list))).status).toBe(200);
    // The pages: the next one is its own.
    const first = await admin.get('/api/v1/users?limit=2').expect(200);
    const nextUrl = `/api/v1/users?limit=2&cursor=${first.body.next_cursor as string}`;
    const next = await admin.get(nextUrl).set('If-None-Match', etagOf(first)).expect(200);
    await admin.get(nextUrl).set('If-None-Match', etagOf(next)).expect(304);
    await admin.get('/api/v1/users/00000000-0000-7000-8000-000000000000').set('If-None-Match', '*').expect(404);
  });

  it('never answers 304 to another caller, or for another resource of the same kind', async () => {
    for (const url of [`/api/v1/connections/${connectionId}`, `/api/v1/queries/${queryId}`, '/api/v1/channels', '/api/v1/runs']) {
      const tag = etagOf(await editor.get(url).expect(200));
      expect((await otherEditor.get(url).set('If-None-Match', tag).expect(200)).headers.etag).not.toBe(tag);
      expect((await viewer.get(url).set('If-None-Match', tag).expect(200)).headers.etag).not.toBe(tag);
    }
    // An admin's keys of two scopes: the read-scoped one sees members as a non-admin does.
    const adminKey = keyClient(h, (await createKey(admin, { name: 'admin scope', scope: 'admin' })).token);
    const readKey = keyClient(h, (await createKey(admin, { name: 'read scope', scope: 'read' })).token);
    const full = await adminKey.get(`/api/v1/users/${viewer.userId}`).expect(200);
    const narrow = await readKey.get(`/api/v1/users/${viewer.userId}`).set('If-None-Match', etagOf(full)).expect(200);
    expect(full.body.email).toBe('vic@example.com');
    expect(narrow.body.email).toBeUndefined();
    expect(etagOf(narrow)).not.toBe(etagOf(full));
    const q2 = (await editor.post('/api/v1/queries').send({ name: 'Other Q', connection_id: connectionId, sql: 'select 3 as three' }).expect(201)).body as { id: string };
    await editor.get(`/api/v1/queries/${q2.id}`).set('If-None-Match', etagOf(await editor.get(`/api/v1/queries/${queryId}`).expect(200))).expect(200);
  });
});

describe('answers kept by their tags in each API process', () => {
  let second: Herald;
  let uncached: Herald;
  beforeAll(async () => {
    // Two more API processes on the same store: one keeping answers (16 MiB by default), one not.
    second = await startHerald({ iso: h.iso, env: { SVC_ROLES: 'api' } });
    uncached = await startHerald({ iso: h.iso, env: { SVC_ROLES: 'api', SVC_ANSWER_CACHE_MB: '0' } });
  });
  afterAll(async () => {
    await second?.stop();
    await uncached?.stop();
  });

  const hits = async (herald: Herald): Promise<number> => {
    const text = (await herald.http.get('/metrics').expect(200)).text;
    const line = text.split('\n').find((l) => l.startsWith('svc_answer_cache_total{outcome="hit"}'));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  };

  it('sends an unchanged list or report again as the same bytes (a hit), and shows a change made through another process at once', async () => {
    const omega = await create('Omega kept');
    const b = keyClient(second, editorToken);
    const before = await hits(second);
    const first = await b.get('/api/v1/reports?limit=100').expect(200);
    const again = await b.get('/api/v1/reports?limit=100').expect(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(again.headers['content-length']).toBe(String(Buffer.byteLength(first.text)));
    const one = await b.get(`/api/v1/reports/${omega.id}`).expect(200);
    expect((await b.get(`/api/v1/reports/${omega.id}`).expect(200)).text).toBe(one.text);
    expect(await hits(second)).toBe(before + 2);

    // A change through the first process: the second's next read shows it, with no wait.
    await editor.patch(`/api/v1/reports/${omega.id}`).send({ version: omega.version, title: 'Omega renamed' }).expect(200);
    const listed = await b.get('/api/v1/reports?limit=100').expect(200);
    expect(listed.body.items.map((r: { title: string }) => r.title)).toContain('Omega renamed');
    expect(listed.body.items.map((r: { title: string }) => r.title)).not.toContain('Omega kept');
    expect((await b.get(`/api/v1/reports/${omega.id}`).expect(200)).body.title).toBe('Omega renamed');
    // A run that ends moves no version of the report, and still shows.
    const runId = (await editor.post(`/api/v1/reports/${omega.id}/run`).send({}).expect(202)).body.id as string;
    await waitForRun(editor, runId);
    expect((await b.get(`/api/v1/reports/${omega.id}`).expect(200)).body.last_run).toMatchObject({ id: runId, status: 'success' });
    const run = await b.get(`/api/v1/runs/${runId}`).expect(200);
    expect((await b.get(`/api/v1/runs/${runId}`).expect(200)).text).toBe(run.text);
    // Deleted: gone from the list, 404 alone, whatever was kept.
    await editor.delete(`/api/v1/reports/${omega.id}`).expect(204);
    expect((await b.get('/api/v1/reports?limit=100').expect(200)).body.items.map((r: { id: string }) => r.id)).not.toContain(omega.id);
    await b.get(`/api/v1/reports/${omega.id}`).expect(404);
  });

  it('reads the versions on two connections of its own at most, where they pipeline', async () => {
    const b = keyClient(second, editorToken);
    await Promise.all(Array.from({ length: 20 }, (_, i) => b.get(i % 2 === 0 ? '/api/v1/reports?limit=100' : '/api/v1/runs?limit=10').expect(200)));
    // The two API-only processes (this one and the one that keeps nothing): two each at most.
    const lane = await h.process.container.sql`select query from pg_stat_activity
      where datname = current_database() and application_name = 'herald-api-reads'`;
    expect(lane.length).toBeGreaterThan(0);
    expect(lane.length).toBeLessThanOrEqual(4);
    // What each last ran: a report page's versions or a row stamp, each with the server's start time.
    for (const { query } of lane) expect(query).toContain('pg_postmaster_start_time()');
  });

  it('shows a change made in the store without the API (no version moved) at the next read, not the kept answer', async () => {
    const kappa = await create('Kappa kept');
    const b = keyClient(second, editorToken);
    await b.get('/api/v1/reports?limit=100').expect(200);
    await b.get(`/api/v1/reports/${kappa.id}`).expect(200);
    const sql = postgres(h.settings.databaseUrl, { max: 1, onnotice: () => undefined });
    try {
      await sql`update reports set description = 'changed by hand' where id = ${kappa.id}`;
    } finally {
      await sql.end();
    }
    const listed = (await b.get('/api/v1/reports?limit=100').expect(200)).body.items.find((r: { id: string }) => r.id === kappa.id);
    expect(listed.description).toBe('changed by hand');
    expect((await b.get(`/api/v1/reports/${kappa.id}`).expect(200)).body.description).toBe('changed by hand');
  });

  it('keeps one caller\'s answer from another: an admin\'s kept answer is never a viewer\'s', async () => {
    const viewerKey = (await createKey(admin, { name: 'vic', scope: 'read', owner_id: viewer.userId })).token;
    const v = keyClient(second, viewerKey);
    const adminKey = (await createKey(admin, { name: 'root', scope: 'read' })).token;
    const a = keyClient(second, adminKey);
    const full = await a.get(`/api/v1/users/${viewer.userId}`).expect(200);
    await a.get(`/api/v1/users/${viewer.userId}`).expect(200);
    const seen = await v.get(`/api/v1/users/${viewer.userId}`).expect(200);
    expect(seen.headers.etag).not.toBe(full.headers.etag);
    expect(seen.text).not.toBe(full.text);
    expect((await v.get(`/api/v1/users/${viewer.userId}`).expect(200)).text).toBe(seen.text);
  });

  it('with SVC_ANSWER_CACHE_MB=0 keeps nothing, and answers the same', async () => {
    const u = keyClient(uncached, editorToken);
    const b = keyClient(second, editorToken);
    const first = await u.get('/api/v1/reports?limit=100').expect(200);
    expect((await u.get('/api/v1/reports?limit=100').expect(200)).text).toBe(first.text);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(await hits(uncached)).toBe(0);
    expect((await b.get('/api/v1/reports?limit=100').expect(200)).text).toBe(first.text);
  });
});
