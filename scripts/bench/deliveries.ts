/**
 * Benchmark: webhook deliveries per second with one `herald worker` process, to a receiver on
 * loopback (a plain node:http server answering 200). Each delivery is signed and carries the
 * run's 20-row result as a csv attachment. BENCH_ROUNDS rounds (default 3), each with a fresh
 * worker and two shapes, each timed from the first enqueue until every run has finished (its
 * deliveries settled), with the worker's CPU (user + system, from /proc) per delivery:
 *   - BENCH_FANOUT deliveries per run (default 10), to as many channels, BENCH_RUNS runs (default 200);
 *   - one delivery per run (BENCH_SINGLE=0 leaves it out), as many deliveries in all;
 * then the limit in the same round: the guarded HTTP client alone (createOutboundHttp, as the
 * webhook plugin uses it) POSTing as many bodies of the size the receiver got, at the worker's
 * delivery concurrency (BENCH_CONCURRENCY, default 16), to the same receiver; and the ratio.
 * Then the store statements per send (BENCH_COUNT=0 leaves it out): the worker's store
 * connections go through a proxy on loopback that counts the statements it executes (the Postgres
 * protocol's Execute and Query messages, BEGIN and COMMIT included), for 50 runs without
 * deliveries and 50 with BENCH_FANOUT each; the difference per delivery is a send's cost (its
 * share of handing the run's deliveries over included). Prints each round and min/median/max;
 * asserts nothing. BENCH_NODE_ARGS adds arguments to the worker's node (--cpu-prof --cpu-prof-dir=DIR).
 *   npx tsx scripts/bench/deliveries.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { createRunQueue } from '../../src/jobs/run-report-spec.js';
import { createOutboundHttp } from '../../src/infra/outbound/http.js';
import { benchApi, benchPlace, countingProxy, cpuMsOf, quantile, queueRunsAndWait, spawnRole, spread, stopChildren, type BenchPlace } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const FANOUT = Number(process.env.BENCH_FANOUT ?? 10);
const DELIVERY_CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const COUNTED_RUNS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_SINGLE=0 leaves out the one-delivery-per-run shape (a shorter run, for a profile). */
const SINGLE = process.env.BENCH_SINGLE !== '0';
/** BENCH_COUNT=0 leaves out the statement count. */
const COUNT = process.env.BENCH_COUNT !== '0';

/**
 * The limit: the guarded client alone (createOutboundHttp, as the webhook plugin uses it), POSTing
 * `total` bodies of the size the receiver got, at the worker's delivery concurrency, to the same receiver.
 */
async function guardedRate(hook: string, bodySize: number, total: number): Promise<number> {
  const body = Buffer.alloc(Math.max(1, bodySize), 'x');
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
  const seconds = (performance.now() - started) / 1000;
  client.close();
  return total / seconds;
}

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
    const single_ = await reportWith('Single', [channels[0]!]);
    const counted = await reportWith('Counted', channels);
    const queue = createRunQueue(api.proc.container.enqueue);
    const sendTimes = async (reportId: string) => (await store`
      select extract(epoch from a.finished_at - a.started_at) * 1000 as ms from delivery_attempts a join runs r on r.id = a.run_id
      where r.report_id = ${reportId} and a.finished_at is not null order by 1`).map((r) => Number(r.ms));

    console.log(`webhook deliveries (signed, csv attached, 20 rows) with 1 worker process, delivery concurrency ${DELIVERY_CONCURRENCY}, to a receiver on loopback; ${ROUNDS} rounds`);
    const total = RUNS * FANOUT;
    const rows: Array<{ fanout: number; cpu: number; single: number; singleCpu: number; limit: number; p50: number; p99: number }> = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const worker = await spawnRole('worker', place, workerEnv, 'worker started');
      children.push(worker);
      const received0 = received;
      const c0 = cpuMsOf(worker.pid);
      const a = await queueRunsAndWait(store, (id) => queue.enqueue(id, fanout), fanout, RUNS, true);
      const cpu = (cpuMsOf(worker.pid) - c0) / total;
      const fanoutRate = total / a.seconds;
      const fanoutSends = await sendTimes(fanout);
      let single = NaN;
      let singleCpu = NaN;
      let singleLine = '';
      if (SINGLE) {
        const c1 = cpuMsOf(worker.pid);
        const b = await queueRunsAndWait(store, (id) => queue.enqueue(id, single_), single_, total, true);
        single = total / b.seconds;
        singleCpu = (cpuMsOf(worker.pid) - c1) / total;
        singleLine = `; ${total} runs x 1 delivery: ${single.toFixed(0)} runs/s (${singleCpu.toFixed(2)} ms worker CPU/run; ${b.statuses})`;
      }
      await stopChildren(children.splice(0));
      const got = received - received0;
      await store`delete from runs where report_id in (${fanout}, ${single_})`;
      const limit = await guardedRate(hook, Math.round(bytes / Math.max(1, received)), total);
      rows.push({ fanout: fanoutRate, cpu, single, singleCpu, limit, p50: quantile(fanoutSends, 0.5), p99: quantile(fanoutSends, 0.99) });
      console.log(`  round ${round}: ${RUNS} runs x ${FANOUT} deliveries: ${fanoutRate.toFixed(0)} deliveries/s (${cpu.toFixed(2)} ms worker CPU/delivery,`
        + ` send p50 ${quantile(fanoutSends, 0.5).toFixed(1)} ms p99 ${quantile(fanoutSends, 0.99).toFixed(1)} ms; ${a.statuses})${singleLine};`
        + ` the guarded client alone ${limit.toFixed(0)} POSTs/s; ratio ${(fanoutRate / limit).toFixed(3)}x; receiver got ${got} (${total * (SINGLE ? 2 : 1)} expected)`);
    }

    // Statements per send, through the counting proxy: 50 runs without deliveries, then 50 with
    // FANOUT each; the difference per delivery is a send's cost.
    let perRun = NaN;
    let perSend = NaN;
    if (COUNT) {
      const proxy = await countingProxy(place.dbUrl);
      const proxied: BenchPlace = { ...place, env: { ...place.env, SVC_DATABASE_URL: proxy.url.toString() } };
      children.push(await spawnRole('worker', proxied, workerEnv, 'worker started'));
      const s0 = proxy.count();
      await queueRunsAndWait(store, (id) => queue.enqueue(id, counted), counted, COUNTED_RUNS, false);
      const s1 = proxy.count();
      await store`delete from runs where report_id = ${counted}`;
      const s1b = proxy.count();
      const w1b = proxy.writes();
      const t1b = new Map(proxy.texts());
      await queueRunsAndWait(store, (id) => queue.enqueue(id, counted), counted, COUNTED_RUNS, true);
      const s2 = proxy.count();
      if (process.env.BENCH_STATEMENTS === '1') {
        // Which statements the delivering runs executed, per delivery.
        console.log(`store writes per delivery (runs' included): ${((proxy.writes() - w1b) / (COUNTED_RUNS * FANOUT)).toFixed(2)}; statements per delivery by text:`);
        for (const [text, n] of proxy.texts()) {
          const d = n - (t1b.get(text) ?? 0);
          if (d > 0) console.log(`  ${(d / (COUNTED_RUNS * FANOUT)).toFixed(3)}  ${text}`);
        }
      }
      await stopChildren(children.splice(0));
      await proxy.close();
      perRun = (s1 - s0) / COUNTED_RUNS;
      perSend = ((s2 - s1b) - perRun * COUNTED_RUNS) / (COUNTED_RUNS * FANOUT);
    }

    const col = (f: (r: (typeof rows)[number]) => number, d: number) => spread(rows.map(f), d);
    console.log(`summary over ${ROUNDS} rounds (min / median / max):`);
    console.log(`  deliveries/s, ${RUNS} runs x ${FANOUT}:  ${col((r) => r.fanout, 0)}`);
    console.log(`  the guarded client alone:       ${col((r) => r.limit, 0)} POSTs/s`);
    console.log(`  ratio deliveries / client:      ${col((r) => r.fanout / r.limit, 3)}`);
    console.log(`  worker CPU per delivery:        ${col((r) => r.cpu, 2)} ms`);
    console.log(`  send p50 / p99:                 ${col((r) => r.p50, 1)} ms / ${col((r) => r.p99, 1)} ms`);
    if (SINGLE) console.log(`  one delivery per run:           ${col((r) => r.single, 0)} runs/s (${col((r) => r.singleCpu, 2)} ms worker CPU/run)`);
    console.log(`  store statements: ${perRun.toFixed(1)} per run without deliveries; ${perSend.toFixed(2)} per delivery sent (its share of the hand-over included)`);
  } finally {
    await stopChildren(children);
    await api?.proc.stop();
    await store.end();
    await place.release();
    receiver.close();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
