import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin } from '../support/identity.js';

const SPEC_METRICS = [
  'svc_runs_total', 'svc_run_duration_seconds', 'svc_query_rows', 'svc_deliveries_total', 'svc_delivery_duration_seconds',
  'svc_queue_pending', 'svc_storage_bytes', 'svc_scheduler_lag_seconds', 'svc_build_info',
];
const TOKEN = 'metrics-token-7f3a9c21e4b8';
const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The value of an unlabelled sample, e.g. svc_queue_pending 2. */
function sample(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

let open: Herald;
let guarded: Herald;
beforeAll(async () => {
  [open, guarded] = await Promise.all([startHerald(), startHerald({ env: { SVC_METRICS_TOKEN: TOKEN } })]);
});
afterAll(async () => {
  await Promise.all([open?.stop(), guarded?.stop()]);
});

describe('GET /metrics', () => {
  it('serves every svc_* metric of the spec and the default process and runtime collectors, without a token when none is set', async () => {
    const res = await open.http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    for (const name of SPEC_METRICS) expect(res.text).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'));
    expect(res.text).toMatch(/^# TYPE svc_runs_total counter$/m);
    expect(res.text).toMatch(/^# TYPE svc_run_duration_seconds histogram$/m);
    expect(res.text).toMatch(/^# TYPE svc_queue_pending gauge$/m);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(res.text).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? \\S+$`, 'm'));
    }
  });

  it('reports the package version in svc_build_info', async () => {
    const res = await open.http.get('/metrics');
    expect(packageVersion).toMatch(/^\d+\.\d+\.\d+/);
    const lines = res.text.split('\n').filter((l) => l.startsWith('svc_build_info'));
    expect(lines).toEqual([`svc_build_info{version="${packageVersion}"} 1`]);
  });

  it('reports the same version at GET /api/v1/system/about', async () => {
    const admin = await setupAdmin(open);
    const about = await admin.get('/api/v1/system/about');
    expect(about.status).toBe(200);
    expect(about.body).toMatchObject({ name: 'Herald', version: packageVersion, roles: ['api'], latest_release: null });
    const metrics = await open.http.get('/metrics');
    expect(metrics.text).toContain(`svc_build_info{version="${about.body.version as string}"} 1`);
  });

  it('shows the jobs waiting in the runs queue in svc_queue_pending', async () => {
    expect(sample((await open.http.get('/metrics')).text, 'svc_queue_pending')).toBe(0);
    const connection = new Redis(open.iso.redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue('runs', { connection, prefix: open.iso.queuePrefix });
    try {
      await queue.add('probe', { n: 1 });
      await queue.add('probe', { n: 2 });
      expect(sample((await open.http.get('/metrics')).text, 'svc_queue_pending')).toBe(2);
      // Another installation's queue (another prefix) does not count.
      expect(sample((await guarded.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`)).text, 'svc_queue_pending')).toBe(0);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });

  it('counts HTTP requests by operation, method and status, with every unmatched path under one label', async () => {
    const before = await open.http.get('/metrics');
    const count = (text: string, labels: string) => sample(text, `svc_http_requests_total\\{${labels}\\}`) ?? 0;
    await open.http.get('/health/live');
    await open.http.get('/health/live');
    await open.http.get('/api/v1/me');
    for (let i = 0; i < 5; i += 1) await open.http.get(`/api/v1/random-${i}-${Date.now()}`);
    await open.http.get('/docs/errors/not_found');
    const after = (await open.http.get('/metrics')).text;
    const live = 'operation="getLiveness",method="GET",status="200"';
    expect(count(after, live) - count(before.text, live)).toBe(2);
    expect(count(after, 'operation="getMe",method="GET",status="401"') - count(before.text, 'operation="getMe",method="GET",status="401"')).toBe(1);
    const unmatched = 'operation="unmatched",method="GET",status="404"';
    expect(count(after, unmatched) - count(before.text, unmatched)).toBe(5);
    expect(count(after, 'operation="page",method="GET",status="200"')).toBeGreaterThanOrEqual(1);
    // Bounded cardinality: no label ever holds a raw path.
    expect(after).not.toMatch(/svc_http_[a-z_]+\{[^}]*random-/);
    expect(after).toMatch(/^# TYPE svc_http_request_duration_seconds histogram$/m);
    expect(after).toMatch(/^svc_http_request_duration_seconds_bucket\{le="0\.005",operation="getLiveness",method="GET",status="200"\} \d+$/m);
    expect(after).toMatch(/^svc_http_request_duration_seconds_count\{operation="unmatched",method="GET",status="404"\} \d+$/m);
  });

  describe('with SVC_METRICS_TOKEN set', () => {
    it('answers 401 auth.unauthenticated without a bearer token', async () => {
      const res = await guarded.http.get('/metrics');
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="herald-metrics"');
      expect(res.body).toMatchObject({ code: 'auth.unauthenticated', status: 401 });
      expect(res.text).not.toContain('svc_');
    });

    it.each([
      ['a wrong token', 'Bearer metrics-token-000000000000'],
      ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
      ['the token as Basic', `Basic ${TOKEN}`],
      ['the bare token', TOKEN],
    ])('answers 401 with %s', async (_what, header) => {
      const res = await guarded.http.get('/metrics').set('Authorization', header);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('auth.unauthenticated');
    });

    it('answers 200 with the right bearer token', async () => {
      const res = await guarded.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain(`svc_build_info{version="${packageVersion}"} 1`);
    });
  });
});
