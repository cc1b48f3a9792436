/**
 * A second limit for scripts/bench/scheduler.ts: the queue alone. Adds BENCH_JOBS jobs to the
 * queue BENCH_QUEUE (under SVC_QUEUE_PREFIX, on SVC_REDIS_URL) with the options Herald's runs get,
 * by addBulk of 1,000, with no store and no other work. Run as a child process, two at once (as two
 * schedulers): prints `queue floor ready` once its connection is up, starts when a line arrives on
 * its standard input, and prints one JSON line `{ "endedAt": epoch ms, "cpuMs": its CPU }`.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Queue } from 'bullmq';

const jobs = Number(process.env.BENCH_JOBS ?? 50_000);
const queue = new Queue(process.env.BENCH_QUEUE ?? 'floor', { connection: { url: process.env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379' }, prefix: process.env.SVC_QUEUE_PREFIX ?? 'bench' });
await queue.waitUntilReady();
const lines = createInterface({ input: process.stdin });
console.log('queue floor ready');
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
const cpu0 = process.cpuUsage();
for (let added = 0; added < jobs; added += 1000) {
  await queue.addBulk(Array.from({ length: Math.min(1000, jobs - added) }, () => {
    const id = randomUUID();
    return { name: 'run', data: { runId: id, reportId: id }, opts: { jobId: id, attempts: 3, backoff: { type: 'exponential', delay: 1000 } } };
  }));
}
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ endedAt: Date.now(), cpuMs: (cpu.user + cpu.system) / 1000 }));
lines.close();
await queue.close();
