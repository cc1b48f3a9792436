/**
 * A restarted Redis and an unreachable store are normal events: requests that need them answer
 * 503 unavailable promptly (never hang, never a 500), and service resumes when they return.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { isolate, type Isolated } from '../support/isolation.js';
import { ADMIN, setupAdmin } from '../support/identity.js';
import { privateRedis, until, type PrivateRedis } from '../support/private-redis.js';
import { holdTableLock } from '../support/table-lock.js';

describe('a restarted Redis', () => {
  let redis: PrivateRedis;
  let h: Herald;
  let iso: Isolated;
  const startRedis = () => redis.start();
  const stopRedis = () => redis.stop();

  beforeAll(async () => {
    redis = await privateRedis();
    await startRedis();
    iso = await isolate();
    h = await startHerald({ iso, env: { SVC_REDIS_URL: redis.url } });
    await setupAdmin(h);
  }, 30_000);

  afterAll(async () => {
    await h.stop();
    await iso.release();
    await redis.remove();
  });

  it('answers sign-ins with 503 unavailable while Redis is down, and signs in again once it is back', async () => {
    const signIn = () => h.http.post('/api/v1/auth/login').send({ email: ADMIN.email, password: ADMIN.password });
    expect((await signIn()).status).toBe(200);

    await stopRedis();
    const down = await signIn();
    expect(down.status).toBe(503);
    expect(down.body.code).toBe('unavailable');
    expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
    // Operations that do not need Redis keep working, metrics included.
    expect((await h.http.get('/api/v1/setup/status')).status).toBe(200);
    const metrics = await h.http.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^svc_queue_pending \d+$/m);

    await startRedis();
    await until(async () => (await signIn()).status === 200, 'sign-in to work again');
  });
});

describe('an unreachable store', () => {
  let h: Herald;
  beforeAll(async () => { h = await startHerald({ env: { SVC_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' } }); });
  afterAll(async () => { await h.stop(); });

  it('answers API requests with 503 unavailable and Retry-After, not 500', async () => {
    const res = await h.http.get('/api/v1/setup/status');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    expect(JSON.stringify(res.body)).not.toContain('127.0.0.1:1');
  });
});

describe('a slow store', () => {
  let h: Herald;
  beforeAll(async () => { h = await startHerald({ env: { SVC_STORE_TIMEOUT_SECONDS: '1' } }); });
  afterAll(async () => { await h.stop(); });

  it('answers 503 unavailable once a statement outlives SVC_STORE_TIMEOUT_SECONDS, then recovers', async () => {
    const admin = await setupAdmin(h);
    const postgres = (await import('postgres')).default;
    const blocker = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
    const lock = await holdTableLock(blocker, 'users');
    try {
      const res = await admin.get('/api/v1/users');
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('unavailable');
    } finally {
      await lock.release();
      await blocker.end();
    }
    expect((await admin.get('/api/v1/users')).status).toBe(200);
  });
});
