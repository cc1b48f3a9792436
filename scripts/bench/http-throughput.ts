/**
 * Benchmark: requests per second and latency of the HTTP edge on this machine, for a public
 * probe and for API-key-authenticated reads (routing, access, validation, store lookups).
 * Starts Herald in-process on its own fresh database and prints figures; asserts nothing.
 *   npx tsx scripts/bench/http-throughput.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import { loadSettings } from '../../src/infra/config/settings.js';
import { createProcessLogger } from '../../src/infra/log/process-logger.js';
import { startProcess } from '../../src/main/runtime.js';
import { benchPlace, freePort } from './support.js';
import { createPasswordHasher } from '../../src/domain/identity/passwords.js';

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

async function measure(label: string, url: string, headers: Record<string, string> = {}): Promise<void> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < TOTAL) {
      next += 1;
      const t = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${label}: ${res.status}`);
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
  console.log(`${label.padEnd(34)} ${String(Math.round(latencies.length / seconds)).padStart(6)} req/s   p50 ${q(0.5)} ms   p99 ${q(0.99)} ms   (${latencies.length} requests, ${CONCURRENCY} concurrent)`);
}

/** A port free right now (the listener must name its port: SVC_LISTEN refuses 0). */
async function main(): Promise<void> {
  const place = await benchPlace();
  let proc: Awaited<ReturnType<typeof startProcess>> | undefined;
  try {
    const settings = loadSettings({ ...place.env, SVC_LISTEN: `127.0.0.1:${await freePort()}`, SVC_ROLES: 'api' });
    const t0 = performance.now();
    proc = await startProcess(settings, createProcessLogger(settings));
    console.log(`start-up (api role, contract loaded)  ${(performance.now() - t0).toFixed(0)} ms`);
    const url = proc.url!;
    const setup = await fetch(`${url}/api/v1/setup`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password: 'a long bench password' }),
    });
    const cookies = setup.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = ((await setup.json()) as { csrf_token: string }).csrf_token;
    const key = await fetch(`${url}/api/v1/api-keys`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookies, 'X-CSRF-Token': csrf },
      body: JSON.stringify({ name: 'bench', scope: 'read' }),
    });
    const token = ((await key.json()) as { token: string }).token;
    await measure('GET /health/live', `${url}/health/live`);
    await measure('GET /health/ready (store query)', `${url}/health/ready`);
    await measure('GET /api/v1/me (API key)', `${url}/api/v1/me`, { Authorization: `Bearer ${token}` });
    await measure('GET /api/v1/users?limit=50 (API key)', `${url}/api/v1/users?limit=50`, { Authorization: `Bearer ${token}` });
    const hasher = createPasswordHasher(settings.bcryptCost);
    const t1 = performance.now();
    for (let i = 0; i < 5; i += 1) await hasher.hash('a long bench password');
    console.log(`password hash (bcrypt cost ${settings.bcryptCost})       ${((performance.now() - t1) / 5).toFixed(0)} ms each (a sign-in costs one)`);
    const mem = process.memoryUsage();
    console.log(`resident memory after the run      ${(mem.rss / 1048576).toFixed(0)} MiB (heap used ${(mem.heapUsed / 1048576).toFixed(0)} MiB)`);
  } finally {
    await proc?.stop();
    await place.release();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
