import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { startHerald, type Herald } from '../support/harness.js';
import { isolate, type Isolated } from '../support/isolation.js';
import { until } from '../support/wait.js';

const PASSWORD = 'PLANTED-ready-pw-5150';
const SECRET_KEY = randomBytes(32).toString('base64');

function withPassword(databaseUrl: string, password = PASSWORD): string {
  const u = new URL(databaseUrl);
  u.password = password;
  return u.toString();
}

/** What a readiness body must never carry. */
function expectNoSecrets(text: string, databaseUrl: string): void {
  expect(text).not.toContain(databaseUrl);
  expect(text).not.toContain(new URL(databaseUrl).host);
  expect(text).not.toContain('postgres://');
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(SECRET_KEY);
}

const running: Herald[] = [];
const isolated: Isolated[] = [];

async function start(options: Parameters<typeof startHerald>[0] = {}): Promise<Herald> {
  const h = await startHerald(options);
  running.push(h);
  return h;
}

afterAll(async () => {
  for (const h of running) await h.stop();
  for (const iso of isolated) await iso.release();
});

describe('GET /health/live', () => {
  it('answers 200 while the process is up', async () => {
    const h = await start();
    const res = await h.http.get('/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('is answered ahead of the edge with every header an API answer has, no validator (no-store), and its metric; HEAD without a body', async () => {
    const h = await start();
    const res = await h.http.get('/health/live').set('X-Request-ID', 'probe-4711-abcd');
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"status":"ok"}\n');
    expect(res.headers['x-request-id']).toBe('probe-4711-abcd');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    // No ETag: an answer never stored is never revalidated (getLiveness declares no 304).
    expect(res.headers.etag).toBeUndefined();
    // The same security headers as an answer that went the ordinary way.
    const ordinary = await h.http.get('/health/ready');
    for (const name of ['content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'cross-origin-resource-policy', 'cross-origin-opener-policy']) {
      expect([name, res.headers[name]]).toEqual([name, ordinary.headers[name]]);
    }
    expect(ordinary.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const head = await request(h.process.app!).head('/health/live');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('16');
    expect(head.text ?? '').toBe('');
    // Credentials or an Origin take the ordinary way (its rules apply): the same answer, no tag
    // there either (Express's send would add one; the writer does not), not 304 to any tag.
    const withCookie = await h.http.get('/health/live').set('Cookie', 'unrelated=1').set('If-None-Match', '*');
    expect({ status: withCookie.status, text: withCookie.text, etag: withCookie.headers.etag }).toEqual({ status: 200, text: '{"status":"ok"}\n', etag: undefined });
    const metrics = (await h.http.get('/metrics')).text;
    expect(metrics).toMatch(/^svc_http_requests_total\{operation="getLiveness",method="GET",status="200"\} [2-9]$/m);
    expect(metrics).toMatch(/^svc_http_requests_total\{operation="getLiveness",method="HEAD",status="200"\} 1$/m);
  });
});

describe('GET /health/ready', () => {
  it('answers 200 with store and migrations ok and no scheduler component on an api-only instance', async () => {
    const iso = await isolate();
    isolated.push(iso);
    const databaseUrl = withPassword(iso.databaseUrl);
    const h = await start({ iso, env: { SVC_ROLES: 'api', SVC_DATABASE_URL: databaseUrl, SVC_SECRET_KEY: SECRET_KEY } });
    const res = await h.http.get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', components: { store: { status: 'ok' }, migrations: { status: 'ok' }, redis: { status: 'ok' } } });
    expectNoSecrets(res.text, databaseUrl);
  });

  it('includes an ok scheduler component where the scheduler role runs', async () => {
    const h = await start({ env: { SVC_ROLES: 'api,scheduler' } });
    const res = await h.http.get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.components).toEqual({ store: { status: 'ok' }, migrations: { status: 'ok' }, redis: { status: 'ok' }, scheduler: { status: 'ok' } });
  });

  it('keeps the scheduler ok past its start-up grace because its ticks complete (1 s ticks, asked after 4 s)', async () => {
    const h = await start({ env: { SVC_ROLES: 'api,scheduler', SVC_SCHEDULER_TICK_SECONDS: '1' } });
    const started = h.process.scheduler!.startedAt.getTime();
    // A tick after the grace window began to run out (waited for: a fixed 4.2 s needed a tick to
    // start after 3 s and end before 4.2 s, which a loaded machine's slow ticks missed), then asked
    // no sooner than 4.2 s after the start.
    const last = await until(() => { const t = h.process.scheduler!.lastTickAt(); return t && t.getTime() > started + 3000 ? t : undefined; }, 'a tick more than 3 s after the start', 20_000);
    expect(last.getTime()).toBeGreaterThan(started + 3000);
    const early = started + 4200 - Date.now();
    if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
    const res = await h.http.get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.components.scheduler).toEqual({ status: 'ok' });
  });

  it('answers 503 with migrations unhealthy on a database without migrations', async () => {
    const iso = await isolate({ template: false });
    isolated.push(iso);
    const databaseUrl = withPassword(iso.databaseUrl);
    const h = await start({ iso, env: { SVC_DATABASE_URL: databaseUrl, SVC_SECRET_KEY: SECRET_KEY } });
    const res = await h.http.get('/health/ready');
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.status).toBe('unhealthy');
    expect(res.body.components.store).toEqual({ status: 'ok' });
    expect(res.body.components.migrations.status).toBe('unhealthy');
    expectNoSecrets(res.text, databaseUrl);
  });

  it('answers 503 with store unhealthy when the database does not answer', async () => {
    const databaseUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:1/herald_nowhere`;
    const h = await start({ env: { SVC_DATABASE_URL: databaseUrl, SVC_SECRET_KEY: SECRET_KEY } });
    const res = await h.http.get('/health/ready');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('unhealthy');
    expect(res.body.components.store.status).toBe('unhealthy');
    expect(res.body.components.migrations.status).toBe('unhealthy');
    expectNoSecrets(res.text, databaseUrl);
    expect(res.text).not.toContain('herald_nowhere');
    expect(h.logs.join('')).not.toContain(PASSWORD);
    // Liveness does not depend on the store.
    expect((await h.http.get('/health/live')).status).toBe(200);
  });
});
