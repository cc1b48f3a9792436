/**
 * Benchmark: runs per second when every run also sends a signed webhook delivery with its result
 * as a csv attachment, to a receiver on loopback (a plain node:http server answering 200), with
 * one `herald worker` process (SVC_WORKER_CONCURRENCY 10 unless BENCH_CONCURRENCY says). N runs
 * (BENCH_RUNS, default 1000) are queued as the API queues them; the clock runs from the first
 * enqueue until every run has finished. Also prints the send duration (attempt started →
 * finished) and what the receiver counted. Then the limit, in the same run: the guarded HTTP
 * client alone (createOutboundHttp, as the worker's webhook plugin uses it) POSTing a body of the
 * size the receiver got, at the same concurrency, to the same receiver, for as many requests;
 * and the ratio. Prints figures; asserts nothing.
 *   npx tsx scripts/bench/deliveries.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { createRunQueue } from '../../src/jobs/run-report-spec.js';
import { createOutboundHttp } from '../../src/infra/outbound/http.js';
import { benchApi, benchPlace, quantile, queueRunsAndWait, spawnRole, stopChildren } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);

async function main(): Promise<void> {
  let received = 0;
  let bytes = 0;
  const receiver = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => { bytes += chunk.length; });
    req.on('end', () => { received += 1; res.end('ok'); });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const place = await benchPlace();
  const store = postgres(place.dbUrl.toString(), { max: 2, onnotice: () => undefined });
  let api: Awaited<ReturnType<typeof benchApi>> | undefined;
  const children: Awaited<ReturnType<typeof spawnRole>>[] = [];
  const allow = { SVC_OUTBOUND_ALLOW: '127.0.0.1' };
  try {
    api = await benchApi(place, allow);
    const { queryId } = await api.selfQuery('select g as id, md5(g::text) as label from generate_series(1, 20) g');
    const report = await api.post('/api/v1/reports', { title: 'Bench', query_id: queryId });
    const channel = await api.post('/api/v1/channels', {
      name: 'Bench hook', type: 'webhook', settings: { url: hook, signing_secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
    });
    await api.post(`/api/v1/reports/${report.id}/deliveries`, { channel_id: channel.id, settings: { attach: 'csv', inline_rows: 5 } });
    children.push(await spawnRole('worker', place, { SVC_WORKER_CONCURRENCY: String(CONCURRENCY), ...allow }, 'worker started'));

    const queue = createRunQueue(api.proc.container.enqueue);
    const { seconds, statuses } = await queueRunsAndWait(store, (id) => queue.enqueue(id, report.id), report.id, RUNS, true);
    const sends = (await store`select extract(epoch from finished_at - started_at) * 1000 as ms from delivery_attempts where finished_at is not null order by 1`)
      .map((r) => Number(r.ms));
    console.log(`runs with one signed webhook delivery (csv attached, 20 rows; 1 worker process, concurrency ${CONCURRENCY})`);
    console.log(`  ${RUNS} runs in ${seconds.toFixed(1)} s: ${(RUNS / seconds).toFixed(0)} runs/s`);
    console.log(`  send (attempt started → recorded) p50 ${quantile(sends, 0.5).toFixed(1)} ms   p99 ${quantile(sends, 0.99).toFixed(1)} ms`);
    console.log(`  statuses: ${statuses}; receiver got ${received} requests`);

    // The limit: the guarded client alone, the same body size, concurrency and receiver.
    const body = Buffer.alloc(Math.max(1, Math.round(bytes / Math.max(1, received))), 'x');
    const client = createOutboundHttp({ allow: ['127.0.0.1'] });
    const signal = new AbortController().signal;
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < RUNS) {
        next += 1;
        await client.request({ method: 'POST', url: hook, headers: { 'content-type': 'application/json' }, body, timeoutMs: 30_000 }, signal);
      }
    }));
    const limitSeconds = (performance.now() - started) / 1000;
    client.close();
    const herald = RUNS / seconds;
    const limit = RUNS / limitSeconds;
    console.log(`  the guarded client alone (${body.length} B bodies, concurrency ${CONCURRENCY}): ${RUNS} POSTs in ${limitSeconds.toFixed(1)} s: ${limit.toFixed(0)}/s`);
    console.log(`  deliveries/s against the client's own rate: ${(herald / limit).toFixed(3)}× (${herald.toFixed(0)} vs ${limit.toFixed(0)})`);
  } finally {
    await stopChildren(children);
    await api?.proc.stop();
    await store.end();
    await place.release();
    receiver.close();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
