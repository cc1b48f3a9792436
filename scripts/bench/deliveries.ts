/**
 * Benchmark: webhook deliveries per second with one `herald worker` process, to a receiver on
 * loopback (a plain node:http server answering 200). Each delivery is signed and carries the
 * run's 20-row result as a csv attachment. Two shapes, each timed from the first enqueue until
 * every run has finished (its deliveries settled):
 *   - BENCH_FANOUT deliveries per run (default 10), to as many channels, BENCH_RUNS runs (default 200);
 *   - one delivery per run, the shape of the earlier figure (62-64 runs/s when deliveries were sent
 *     inside the run's job), as many deliveries in all.
 * Then the store statements per send: the worker's store connections go through a proxy on
 * loopback that counts the statements it executes (the Postgres protocol's Execute and Query
 * messages, BEGIN and COMMIT included), for 50 runs without deliveries and 50 with
 * BENCH_FANOUT each; the difference per delivery is a send's cost (its share of handing the
 * run's deliveries over included). Then the limit, in the same run: the guarded HTTP client
 * alone (createOutboundHttp, as the webhook plugin uses it) POSTing bodies of the size the
 * receiver got, at the worker's delivery concurrency, to the same receiver; and the ratio.
 * Prints figures; asserts nothing.
 *   npx tsx scripts/bench/deliveries.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { createRunQueue } from '../../src/jobs/run-report-spec.js';
import { createOutboundHttp } from '../../src/infra/outbound/http.js';
import { benchApi, benchPlace, countingProxy, quantile, queueRunsAndWait, spawnRole, stopChildren, type BenchPlace } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const FANOUT = Number(process.env.BENCH_FANOUT ?? 10);
const DELIVERY_CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const COUNTED_RUNS = 50;

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
  const workerEnv = { SVC_DELIVERY_CONCURRENCY: String(DELIVERY_CONCURRENCY), ...allow };
  try {
    api = await benchApi(place, allow);
    const { queryId } = await api.selfQuery('select g as id, md5(g::text) as label from generate_series(1, 20) g');
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const channels: string[] = [];
    for (let i = 0; i < FANOUT; i += 1) {
      channels.push((await api.post('/api/v1/channels', { name: `Bench hook ${i}`, type: 'webhook', settings: { url: hook, signing_secret: secret } })).id as string);
    }
    const reportWith = async (title: string, deliveries: string[]): Promise<string> => {
      const report = await api!.post('/api/v1/reports', { title, query_id: queryId });
      for (const ch of deliveries) await api!.post(`/api/v1/reports/${report.id}/deliveries`, { channel_id: ch, settings: { attach: 'csv', inline_rows: 5 } });
      return report.id as string;
    };
    const fanout = await reportWith('Fan-out', channels);
    const single = await reportWith('Single', [channels[0]!]);
    const counted = await reportWith('Counted', channels);
    const queue = createRunQueue(api.proc.container.enqueue);
    const sendTimes = async (reportId: string) => (await store`
      select extract(epoch from a.finished_at - a.started_at) * 1000 as ms from delivery_attempts a join runs r on r.id = a.run_id
      where r.report_id = ${reportId} and a.finished_at is not null order by 1`).map((r) => Number(r.ms));

    children.push(await spawnRole('worker', place, workerEnv, 'worker started'));
    console.log(`webhook deliveries (signed, csv attached, 20 rows) with 1 worker process, delivery concurrency ${DELIVERY_CONCURRENCY}, to a receiver on loopback`);
    const a = await queueRunsAndWait(store, (id) => queue.enqueue(id, fanout), fanout, RUNS, true);
    const fanoutRate = (RUNS * FANOUT) / a.seconds;
    const fanoutSends = await sendTimes(fanout);
    console.log(`  ${RUNS} runs x ${FANOUT} deliveries (${FANOUT} channels): ${RUNS * FANOUT} in ${a.seconds.toFixed(1)} s: ${fanoutRate.toFixed(0)} deliveries/s`
      + `   send p50 ${quantile(fanoutSends, 0.5).toFixed(1)} ms, p99 ${quantile(fanoutSends, 0.99).toFixed(1)} ms   (${a.statuses})`);
    const b = await queueRunsAndWait(store, (id) => queue.enqueue(id, single), single, RUNS * FANOUT, true);
    const singleRate = (RUNS * FANOUT) / b.seconds;
    console.log(`  ${RUNS * FANOUT} runs x 1 delivery: ${b.seconds.toFixed(1)} s: ${singleRate.toFixed(0)} deliveries/s (= runs/s)   (${b.statuses})`);
    console.log(`  receiver got ${received} requests (${RUNS * FANOUT * 2} expected)`);
    await stopChildren(children.splice(0));

    // Statements per send, through the counting proxy.
    const proxy = await countingProxy(place.dbUrl);
    const proxied: BenchPlace = { ...place, env: { ...place.env, SVC_DATABASE_URL: proxy.url.toString() } };
    children.push(await spawnRole('worker', proxied, workerEnv, 'worker started'));
    const s0 = proxy.count();
    await queueRunsAndWait(store, (id) => queue.enqueue(id, counted), counted, COUNTED_RUNS, false);
    const s1 = proxy.count();
    await queueRunsAndWait(store, (id) => queue.enqueue(id, counted), counted, COUNTED_RUNS * 2, true);
    const s2 = proxy.count();
    await stopChildren(children.splice(0));
    await proxy.close();
    const perRun = (s1 - s0) / COUNTED_RUNS;
    const perSend = ((s2 - s1) - perRun * COUNTED_RUNS) / (COUNTED_RUNS * FANOUT);
    console.log(`  store statements: ${perRun.toFixed(1)} per run without deliveries; ${perSend.toFixed(1)} per delivery sent (its share of the hand-over included)`);

    // The limit: the guarded client alone, the same body size, concurrency and receiver.
    const total = RUNS * FANOUT;
    const body = Buffer.alloc(Math.max(1, Math.round(bytes / Math.max(1, received))), 'x');
    const client = createOutboundHttp({ allow: ['127.0.0.1'] });
    const signal = new AbortController().signal;
    setMaxListeners(DELIVERY_CONCURRENCY * 2, signal); // one signal for every request in flight
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: DELIVERY_CONCURRENCY }, async () => {
      while (next < total) {
        next += 1;
        await client.request({ method: 'POST', url: hook, headers: { 'content-type': 'application/json' }, body, timeoutMs: 30_000 }, signal);
      }
    }));
    const limitSeconds = (performance.now() - started) / 1000;
    client.close();
    const limit = total / limitSeconds;
    console.log(`  the guarded client alone (${body.length} B bodies, concurrency ${DELIVERY_CONCURRENCY}): ${total} POSTs in ${limitSeconds.toFixed(2)} s: ${limit.toFixed(0)}/s`);
    console.log(`  deliveries/s against the client's own rate: fan-out ${(fanoutRate / limit).toFixed(3)}× (${fanoutRate.toFixed(0)} vs ${limit.toFixed(0)}), one per run ${(singleRate / limit).toFixed(3)}×`);
  } finally {
    await stopChildren(children);
    await api?.proc.stop();
    await store.end();
    await place.release();
    receiver.close();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
