/**
 * A Redis client that waits between two tries to reconnect (its server gone) ends when told to
 * disconnect: ioredis alone leaves it `reconnecting` with no `end` and its queued commands
 * unsettled (redis/ioredis#1247), and BullMQ waits for that `end` when it closes a worker's
 * blocking connection, so a worker stopped while Redis (or every server under Sentinel) was away
 * never stopped. Herald's clients (HeraldRedis, and their duplicates) end at once; a worker's
 * stop ends while its Redis is away; and a worker whose Redis comes back takes runs again.
 */
import type { Redis } from 'ioredis';
import { createRedis, HeraldRedis } from '../../src/infra/queue/queues.js';
import { startHerald, type Herald } from '../support/harness.js';
import { privateRedis, until, type PrivateRedis } from '../support/private-redis.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await privateRedis();
  await redis.start();
});
afterAll(async () => {
  await redis.remove();
});

/** A client of the given kind whose server has gone, caught between two tries to reconnect. */
async function betweenTries(make: () => Redis): Promise<{ client: Redis; queued: Promise<unknown> }> {
  const client = make();
  client.on('error', () => undefined);
  await until(async () => client.status === 'ready', 'the client to connect');
  await redis.stop();
  await until(async () => client.status === 'reconnecting', 'the client to wait between tries', 10_000, 5);
  // A command sent now waits in the offline queue for the next connection.
  const queued = client.get('k').then((v) => ({ value: v }), (err: Error) => ({ error: err.message }));
  return { client, queued };
}

it('disconnect() of a client waiting between tries ends it and fails what it had queued', async () => {
  try {
    const { client, queued } = await betweenTries(() => new HeraldRedis(redis.port, '127.0.0.1', { maxRetriesPerRequest: null, retryStrategy: () => 60_000 }));
    const ended = new Promise<string>((resolve) => client.once('end', () => resolve('end')));
    client.disconnect();
    expect(await Promise.race([ended, new Promise((r) => { setTimeout(() => r('no end'), 2_000); })])).toBe('end');
    expect(client.status).toBe('end');
    expect(await queued).toEqual({ error: 'Connection is closed.' });
  } finally {
    await redis.start();
  }
});

it('a duplicate (how BullMQ makes a worker\'s blocking connection) keeps the fix; a disconnect that asks to reconnect does not end it', async () => {
  try {
    const parent = createRedis(redis.url, 'worker', { retryStrategy: () => 60_000 });
    parent.on('error', () => undefined);
    const { client, queued } = await betweenTries(() => parent.duplicate());
    expect(client).toBeInstanceOf(HeraldRedis);
    client.disconnect(true);
    expect(client.status).not.toBe('end');
    client.disconnect();
    expect(client.status).toBe('end');
    expect(await queued).toEqual({ error: 'Connection is closed.' });
    parent.disconnect();
  } finally {
    await redis.start();
  }
});

describe('a worker whose Redis is away', () => {
  let h: Herald | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it('stops, ending the connections BullMQ made for it, and logs that it stopped', async () => {
    h = await startHerald({ env: { SVC_REDIS_URL: redis.url, SVC_ROLES: 'api,worker', SVC_SHUTDOWN_TIMEOUT_SECONDS: '2' } });
    await until(async () => h!.logs.some((l) => l.includes('"worker started"')), 'the worker to start');
    await redis.stop();
    // Its clients notice and wait between tries (ioredis waits up to 2 s between them).
    await until(async () => h!.logs.some((l) => /"(worker error|redis connection problem|queue connection problem)"/.test(l)), 'the clients to notice', 20_000);
    await new Promise((r) => setTimeout(r, 500));
    const { logs } = h;
    const stopping = h.stop();
    h = undefined;
    const outcome = await Promise.race([stopping.then(() => 'stopped'), new Promise((r) => { setTimeout(() => r('still stopping'), 30_000); })]);
    await redis.start();
    expect(outcome).toBe('stopped');
    expect(logs.some((l) => l.includes('"worker stopped"'))).toBe(true);
    // Its connections were ended, not left behind (they would keep the process alive).
    expect(logs.some((l) => l.includes('did not close in time'))).toBe(false);
  }, 60_000);
});
