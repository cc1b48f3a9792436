/**
 * SVC_REDIS_URL naming a Redis Cluster (three primaries from Debian's redis-server on loopback):
 * every key Herald writes carries its prefix as one hash tag (BullMQ's and the rate limits'
 * multi-key scripts need their keys in one slot), runs are queued and carried by the worker,
 * sign-in attempts are limited, the event stream tells of the run, and readiness is ok.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { waitForRun } from '../support/runs.js';
import { openSse, serve } from '../support/sse.js';
import { startClusterSet, type ClusterSet } from '../support/redis-cluster.js';

let cluster: ClusterSet;
let h: Herald;
let admin: SessionClient;
let src: PostgresSource;

beforeAll(async () => {
  cluster = await startClusterSet();
  h = await startHerald({ env: { SVC_REDIS_URL: cluster.url, SVC_ROLES: 'api,worker' } });
  admin = await setupAdmin(h);
  src = await createPostgresSource(async () => undefined);
}, 90_000);
afterAll(async () => {
  await h?.stop();
  await src?.drop();
  await cluster?.stop();
});

it('queues and carries runs, limits sign-ins and streams events, every key under one hash tag', async () => {
  const prefix = h.settings.queuePrefix;
  expect(prefix).toMatch(/^\{[A-Za-z0-9_-]+\}$/);
  const { token } = await createKey(admin, { name: 'watcher', scope: 'admin' });
  const server = await serve(h.process.app!);
  const stream = await openSse(server.url, token);
  try {
    const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
    const queryId = (await admin.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id as string;
    const reportId = (await admin.post('/api/v1/reports').send({ title: 'On a cluster', query_id: queryId }).expect(201)).body.id as string;
    const runs = await Promise.all([1, 2, 3].map(async () => (await admin.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body.id as string));
    for (const id of runs) expect(await waitForRun(admin, id, undefined, 30_000)).toMatchObject({ status: 'success', attempts: 1 });
    await stream.until((events) => runs.every((id) => events.some((e) => e.event === 'run.updated' && e.data.id === id && e.data.status === 'success')), 30_000);

    // Wrong passwords are counted in Redis until the limit answers 429.
    let status = 0;
    for (let i = 0; i < 30 && status !== 429; i += 1) {
      status = (await h.http.post('/api/v1/auth/login').send({ email: 'nobody@example.com', password: 'wrong password here' })).status;
    }
    expect(status).toBe(429);

    // Every key of this installation is under its hash tag (so in one slot), and there are some.
    const keys = await cluster.keys('*');
    const ours = keys.filter((k) => k.key.startsWith(prefix));
    expect(ours.length).toBeGreaterThan(0);
    expect(new Set(ours.map((k) => k.port)).size).toBe(1);
    expect(keys.filter((k) => !k.key.startsWith(prefix))).toEqual([]);
    expect((await h.http.get('/health/ready')).body).toMatchObject({ status: 'ok' });
  } finally {
    await stream.close();
    await server.close();
  }
}, 120_000);
