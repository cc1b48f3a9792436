/**
 * Workers finish their jobs on a graceful stop, and hand them back when they cannot: a job whose
 * worker is gone is picked up by another worker once its lock expires, even when that happens
 * more than once.
 */
import { randomBytes } from 'node:crypto';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Writable } from 'node:stream';
import { createWorker } from '../../src/worker.js';
import { jobCatalog, type JobType } from '../../src/infra/queue/job-catalog.js';
import { QUEUE_NAMES } from '../../src/infra/queue/queues.js';
import { createLogger } from '../../src/infra/log/logger.js';
import { redisUrl } from '../support/env.js';

/**
 * Every worker of this file uses the same short lock (BullMQ runs one stalled-job check per
 * interval across workers); long enough that a busy machine still renews it in time.
 */
const LOCK_MS = 4000;
const prefix = `t_worker_${randomBytes(4).toString('hex')}`;
const logger = createLogger({ format: 'json', level: 'error', stream: new Writable({ write: (_c, _e, cb) => cb() }) });
const connections: Redis[] = [];
const connect = () => { const r = new Redis(redisUrl(), { maxRetriesPerRequest: null }); connections.push(r); return r; };
let queue: Queue;

/** A job type whose handler waits until the test opens its gate; records who ran it. */
function gatedJob(ran: string[], worker: string, gate: Promise<void>): JobType<{ n: number }> {
  return {
    name: 'test.gated', queue: 'runs', attempts: 1, backoffMs: 0, timeoutMs: 10_000,
    parse: (data) => data as { n: number },
    async handle(payload: { n: number }, job: Job) {
      ran.push(`${worker}:${payload.n}:started`);
      await gate;
      ran.push(`${worker}:${payload.n}:done:${job.id}`);
    },
  };
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 25_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Handlers cut off by a late stop keep running in this process (a real process exits after its
 * stop); they are let go at the end, before the connections close, so nothing is left waiting.
 */
let releaseCutOff!: () => void;
const cutOff = new Promise<void>((resolve) => { releaseCutOff = resolve; });

beforeAll(() => { queue = new Queue(QUEUE_NAMES.runs, { connection: connect(), prefix }); });
afterAll(async () => {
  releaseCutOff();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await queue.obliterate({ force: true });
  await queue.close();
  for (const c of connections) c.disconnect();
});

it('finishes an active job before a graceful stop returns', async () => {
  const ran: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((r) => { open = r; });
  const worker = createWorker({ connection: connect(), prefix, catalog: jobCatalog([gatedJob(ran, 'w1', gate)]), logger, lockDurationMs: LOCK_MS });
  worker.start();
  const job = await queue.add('test.gated', { n: 1 });
  await waitFor(async () => ran.includes('w1:1:started'), 'the job to start');
  const stopped = worker.stop(10_000);
  setTimeout(open, 200);
  await stopped;
  expect(ran).toEqual(['w1:1:started', `w1:1:done:${job.id}`]);
  expect(await (await Job.fromId(queue, job.id!))!.getState()).toBe('completed');
});

it('hands a job back when its worker stops without finishing, and another worker completes it', async () => {
  const ran: string[] = [];
  const never = cutOff;
  const first = createWorker({ connection: connect(), prefix, catalog: jobCatalog([gatedJob(ran, 'w1', never)]), logger, lockDurationMs: LOCK_MS });
  first.start();
  const job = await queue.add('test.gated', { n: 2 });
  await waitFor(async () => ran.includes('w1:2:started'), 'the first worker to take the job');
  await first.stop(100); // past the time limit: force-closed with the job unfinished
  expect(await (await Job.fromId(queue, job.id!))!.getState()).not.toBe('completed');
  // A second worker cut off just as late (a second rolling deploy) does not lose the job either.
  const again = createWorker({ connection: connect(), prefix, catalog: jobCatalog([gatedJob(ran, 'w3', never)]), logger, lockDurationMs: LOCK_MS });
  again.start();
  await waitFor(async () => ran.includes('w3:2:started'), 'another worker to take the job after its lock expired');
  await again.stop(100);

  const second = createWorker({ connection: connect(), prefix, catalog: jobCatalog([gatedJob(ran, 'w2', Promise.resolve())]), logger, lockDurationMs: LOCK_MS });
  second.start();
  await waitFor(async () => (await (await Job.fromId(queue, job.id!))!.getState()) === 'completed', 'another worker to complete the job');
  await second.stop(5000);
  expect(ran).toContain(`w2:2:done:${job.id}`);
}, 60_000);

it('fails a job of an unknown type for good instead of retrying it', async () => {
  const worker = createWorker({ connection: connect(), prefix, catalog: jobCatalog([]), logger, lockDurationMs: LOCK_MS });
  worker.start();
  const job = await queue.add('no.such.type', {}, { attempts: 3 });
  await waitFor(async () => (await (await Job.fromId(queue, job.id!))!.getState()) === 'failed', 'the job to fail');
  const failed = (await Job.fromId(queue, job.id!))!;
  expect(failed.attemptsMade).toBe(1);
  expect(failed.failedReason).toContain('unknown job type no.such.type');
  await worker.stop(5000);
});
