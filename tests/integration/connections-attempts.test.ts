/**
 * Connection attempts are bounded: against a peer that accepts and closes at once, or accepts
 * and never answers, a test of settings, a preview and a run each make one attempt (the peer
 * counts them), answer connection.unreachable, and the pooled session does not go on trying
 * afterwards. (postgres.js on its own reopened such a connection at once, without end: tens of
 * thousands of connections a minute.) Loopback peers from tests/support/fake-servers.ts.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { closingServer, silentServer, type FakeServer } from '../support/fake-servers.js';
import { waitForRun } from '../support/runs.js';

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;

beforeAll(async () => {
  h = await startHerald({ env: { SVC_ROLES: 'api,worker' } });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Cora', email: 'cora@example.com', role: 'editor' });
});
afterAll(async () => {
  await h?.stop();
});

const types = [['postgres'], ['mysql']] as const;

const settings = (type: string, port: number, sslMode = 'disable') => ({
  name: `peer ${type} ${port} ${sslMode}`, type, host: '127.0.0.1', port, database: 'shop', username: 'reader', password: 'a password', ssl_mode: sslMode,
});

/** Gives anything still trying a moment to show itself (nothing should: the count must not move). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));

/** At most this many connections per operation: one attempt (a stray second would still be no storm). */
const BOUND = 3;

describe('a peer that accepts and closes at once', () => {
  let peer: FakeServer;
  beforeEach(async () => { peer = await closingServer(); });
  afterEach(async () => { await peer.close(); });

  test.each([
    ['postgres', 'disable'], ['postgres', 'prefer'], ['postgres', 'require'],
    ['mysql', 'disable'], ['mysql', 'prefer'],
  ])('%s (ssl_mode %s): POST /connections/test answers 422 connection.unreachable after one connection', async (type, sslMode) => {
    const res = await admin.post('/api/v1/connections/test').send(settings(type, peer.port, sslMode));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'connection.unreachable', detail: expect.stringContaining('closed the connection') });
    expect(peer.accepted).toBeGreaterThanOrEqual(1);
    expect(peer.accepted).toBeLessThanOrEqual(BOUND);
    await settle();
    expect(peer.accepted).toBeLessThanOrEqual(BOUND);
  }, 20_000);

  test.each(types)('%s: a preview on a saved connection answers connection.unreachable, and its pooled session stops trying', async (type) => {
    const connectionId = (await admin.post('/api/v1/connections').send(settings(type, peer.port)).expect(201)).body.id;
    const res = await editor.post('/api/v1/queries/preview').send({ connection_id: connectionId, sql: 'select 1' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('connection.unreachable');
    expect(peer.accepted).toBeLessThanOrEqual(BOUND);
    // A second preview is a second attempt, not the continuation of a loop.
    const again = await editor.post('/api/v1/queries/preview').send({ connection_id: connectionId, sql: 'select 2' });
    expect(again.body.code).toBe('connection.unreachable');
    expect(peer.accepted).toBeLessThanOrEqual(2 * BOUND);
    await settle();
    expect(peer.accepted).toBeLessThanOrEqual(2 * BOUND);
  }, 20_000);

  test.each(types)('%s: a run on a saved connection fails with connection.unreachable, and the worker\'s pooled session stops trying', async (type) => {
    const connectionId = (await admin.post('/api/v1/connections').send(settings(type, peer.port)).expect(201)).body.id;
    const query = await editor.post('/api/v1/queries').send({ name: `q ${type}`, connection_id: connectionId, sql: 'select 1 as one' }).expect(201);
    const report = await editor.post('/api/v1/reports').send({ title: `r ${type}`, query_id: query.body.id }).expect(201);
    const queued = await editor.post(`/api/v1/reports/${report.body.id}/run`).send({});
    expect(queued.status).toBe(202);
    const run = await waitForRun(editor, queued.body.id);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'connection.unreachable' } });
    expect(peer.accepted).toBeLessThanOrEqual(BOUND);
    await settle();
    expect(peer.accepted).toBeLessThanOrEqual(BOUND);
  }, 30_000);
});

describe('a peer that accepts and never answers', () => {
  // The connect timeout (10 s for the API) ends each attempt; both types wait side by side.
  test('POST /connections/test answers 422 connection.unreachable (the connect timeout) after one connection, for both types', async () => {
    const peers = await Promise.all(types.map(() => silentServer()));
    try {
      const answers = await Promise.all(types.map(([type], i) => admin.post('/api/v1/connections/test').send(settings(type, peers[i]!.port))));
      for (const [i, res] of answers.entries()) {
        expect({ type: types[i]![0], status: res.status, code: res.body.code }).toEqual({ type: types[i]![0], status: 422, code: 'connection.unreachable' });
        expect(res.body.detail).toMatch(/connect timeout/);
        expect(peers[i]!.accepted).toBeGreaterThanOrEqual(1);
        expect(peers[i]!.accepted).toBeLessThanOrEqual(BOUND);
      }
    } finally {
      await Promise.all(peers.map((p) => p.close()));
    }
  }, 40_000);
});
