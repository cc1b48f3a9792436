/**
 * Workers finish their jobs on a graceful stop, and hand them back when they cannot: a job whose
 * worker is gone is picked up by another worker once its lock expires, even when that happens
 * more than once. A job's work really stops at its time limit and at the shutdown deadline (its
 * handler's signal is aborted); a DomainError fails a job for good, other errors are retried.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Writable } from 'node:stream';
import { createWorker, finalFailureOf } from '../../src/main/worker.js';
import { jobCatalog, JobTimeoutError, WorkersLostError, type Enqueue, type JobSpec, type JobType } from '../../src/jobs/catalog.js';
import { createActiveRuns, runReportJob } from '../../src/jobs/run-report.js';
import { newId } from '../../src/core/ids.js';
import { createEnqueue } from '../../src/infra/queue/queues.js';
import { QUEUE_NAMES } from '../../src/jobs/catalog.js';
import { DomainError } from '../../src/core/errors.js';
import { createLogger } from '../../src/infra/log/logger.js';
import { redisUrl } from '../support/env.js';

/**
 * Every worker of this file uses the same short lock (BullMQ runs one stalled-job check per
 * interval across workers); long enough that a busy machine still renews it in time. The check
 * runs often, so that a job is handed back soon after its lock expired.
 */
const LOCK_MS = 4000;
const STALLED_CHECK_MS = 500;
const timing = { lockDurationMs: LOCK_MS, stalledIntervalMs: STALLED_CHECK_MS };
const prefix = `t_worker_${randomBytes(4).toString('hex')}`;
const logger = createLogger({ format: 'json', level: 'error', stream: new Writable({ write: (_c, _e, cb) => cb() }) });
const connections: Redis[] = [];
const connect = () => { const r = new Redis(redisUrl(), { maxRetriesPerRequest: null }); connections.push(r); return r; };
let queue: Queue;
/** Queues of the tests that use their own prefix, emptied at the end. */
const ownQueues: Queue[] = [];

/** A job type whose handler waits until the test opens its gate; records who ran it. */
function gatedJob(ran: string[], worker: string, gate: Promise<void>): JobType<{ n: number }> {
  return {
    name: 'test.gated', queue: 'runs', attempts: 1, backoffMs: 0, timeoutMs: 10_000,
    parse: (data) => data as { n: number },
    async handle(payload, { job }) {
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
  for (const q of [queue, ...ownQueues]) {
    await q.obliterate({ force: true });
    await q.close();
  }
  for (const c of connections) c.disconnect();
});

it('finishes an active job before a graceful stop returns', async () => {
  const ran: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((r) => { open = r; });
  const worker = createWorker({ connection: connect(), prefix, catalog: jobCatalog([gatedJob(ran, 'w1', gate)]), logger, ...timing });
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
  const first = createWorker({ connection: connect(), prefix, catalog: jobCatalog([gatedJob(ran, 'w1', never)]), logger, ...timing });
  first.start();
  const job = await queue.add('test.gated', { n: 2 });
  await waitFor(async () => ran.includes('w1:2:started'), 'the first worker to take the job');
  await first.stop(100); // past the time limit: force-closed with the job unfinished
  expect(await (await Job.fromId(queue, job.id!))!.getState()).not.toBe('completed');
  // A second worker cut off just as late (a second rolling deploy) does not lose the job either.
  const again = createWorker({ connection: connect(), prefix, catalog: jobCatalog([gatedJob(ran, 'w3', never)]), logger, ...timing });
  again.start();
  await waitFor(async () => ran.includes('w3:2:started'), 'another worker to take the job after its lock expired');
  await again.stop(100);

  const second = createWorker({ connection: connect(), prefix, catalog: jobCatalog([gatedJob(ran, 'w2', Promise.resolve())]), logger, ...timing });
  second.start();
  await waitFor(async () => (await (await Job.fromId(queue, job.id!))!.getState()) === 'completed', 'another worker to complete the job');
  await second.stop(5000);
  expect(ran).toContain(`w2:2:done:${job.id}`);
}, 60_000);

it('fails a job of an unknown type for good instead of retrying it', async () => {
  const worker = createWorker({ connection: connect(), prefix, catalog: jobCatalog([]), logger, ...timing });
  worker.start();
  const job = await queue.add('no.such.type', {}, { attempts: 3 });
  await waitFor(async () => (await (await Job.fromId(queue, job.id!))!.getState()) === 'failed', 'the job to fail');
  const failed = (await Job.fromId(queue, job.id!))!;
  expect(failed.attemptsMade).toBe(1);
  expect(failed.failedReason).toContain('unknown job type no.such.type');
  await worker.stop(5000);
});

/** A queue prefix of one test's own, so jobs left behind by another test never reach its worker. */
function ownPrefix(): { prefix: string; queue: Queue; enqueue: Enqueue } {
  const own = `${prefix}_${randomBytes(3).toString('hex')}`;
  const q = new Queue(QUEUE_NAMES.runs, { connection: connect(), prefix: own });
  ownQueues.push(q);
  return { prefix: own, queue: q, enqueue: createEnqueue<string>({ runs: q }) };
}

/**
 * What a signal-honouring handler did: each step notes whether its signal was already aborted
 * (it must never be), and the end of each run notes the abort reason it stopped on.
 */
interface Trace { steps: { attempt: number; afterAbort: boolean }[]; ended: { attempt: number; reason: unknown }[] }

/** A job type whose handler works in small steps until its signal is aborted. */
function busyJob(trace: Trace, spec: Partial<JobSpec<unknown>> = {}): JobType {
  return {
    name: 'test.busy', queue: 'runs', attempts: 1, backoffMs: 10, timeoutMs: 60_000, parse: (data) => data, ...spec,
    async handle(_payload, { signal, job }) {
      const attempt = job.attemptsMade + 1;
      try {
        for (;;) {
          await sleep(20, undefined, { signal }); // rejects as soon as the signal is aborted
          trace.steps.push({ attempt, afterAbort: signal.aborted });
        }
      } finally {
        trace.ended.push({ attempt, reason: signal.reason });
      }
    },
  };
}

async function stateOf(q: Queue, id: string): Promise<string> {
  return (await Job.fromId(q, id))!.getState();
}

it('stops a job\'s work at its time limit and fails the attempt with a timeout error, retrying it per its attempts', async () => {
  const own = ownPrefix();
  const trace: Trace = { steps: [], ended: [] };
  const type = busyJob(trace, { attempts: 2, timeoutMs: 300 });
  const worker = createWorker({ connection: connect(), prefix: own.prefix, catalog: jobCatalog([type]), logger, ...timing });
  worker.start();
  await own.enqueue(type, {}, { jobId: 'slow-1' });
  await waitFor(async () => (await stateOf(own.queue, 'slow-1')) === 'failed', 'the job to fail after its attempts');
  await waitFor(async () => trace.ended.length === 2, 'both runs of the handler to end');
  await worker.stop(5000);

  const failed = (await Job.fromId(own.queue, 'slow-1'))!;
  expect(failed.attemptsMade).toBe(2);
  expect(failed.failedReason).toBe('test.busy took longer than its time limit of 300 ms and was stopped');
  // Each run ended on its time limit, and did nothing once its signal was aborted.
  expect(trace.ended.map((e) => e.attempt)).toEqual([1, 2]);
  for (const e of trace.ended) expect(e.reason).toBeInstanceOf(JobTimeoutError);
  expect(trace.steps.filter((s) => s.afterAbort)).toEqual([]);
}, 60_000);

it('aborts a running job\'s signal at the shutdown deadline and hands the job back unfinished', async () => {
  const own = ownPrefix();
  const trace: Trace = { steps: [], ended: [] };
  const type = busyJob(trace);
  const worker = createWorker({ connection: connect(), prefix: own.prefix, catalog: jobCatalog([type]), logger, ...timing });
  worker.start();
  await own.enqueue(type, {}, { jobId: 'long-1' });
  await waitFor(async () => trace.steps.length > 0, 'the job to be under way');
  await worker.stop(100); // past the time limit: the job is still running
  await waitFor(async () => trace.ended.length === 1, 'the handler to stop on its aborted signal');

  expect(trace.ended[0]!.reason).toBe('the worker is shutting down');
  expect(trace.steps.filter((s) => s.afterAbort)).toEqual([]);
  // Neither completed nor failed: handed back, for another worker once its lock expires.
  expect(await stateOf(own.queue, 'long-1')).toBe('active');
  const job = (await Job.fromId(own.queue, 'long-1'))!;
  expect(job.attemptsMade).toBe(0);
}, 30_000);

it('fails a job whose handler throws a DomainError for good, without retrying it', async () => {
  const own = ownPrefix();
  let runs = 0;
  const type: JobType = {
    name: 'test.refused', queue: 'runs', attempts: 3, backoffMs: 10, timeoutMs: 10_000, parse: (data) => data,
    async handle() { runs += 1; throw new DomainError('not_found', 'No such report'); },
  };
  const worker = createWorker({ connection: connect(), prefix: own.prefix, catalog: jobCatalog([type]), logger, ...timing });
  worker.start();
  await own.enqueue(type, {}, { jobId: 'refused-1' });
  await waitFor(async () => (await stateOf(own.queue, 'refused-1')) === 'failed', 'the job to fail');
  await worker.stop(5000);

  const failed = (await Job.fromId(own.queue, 'refused-1'))!;
  expect(failed.attemptsMade).toBe(1);
  expect(failed.failedReason).toBe('not_found: No such report');
  expect(runs).toBe(1);
});

it('retries a job whose handler throws another error, with its catalog entry\'s attempts and backoff', async () => {
  const own = ownPrefix();
  let runs = 0;
  const type: JobType = {
    name: 'test.flaky', queue: 'runs', attempts: 3, backoffMs: 20, timeoutMs: 10_000, parse: (data) => data,
    async handle() { runs += 1; throw new Error(`the mail server is away (run ${runs})`); },
  };
  const worker = createWorker({ connection: connect(), prefix: own.prefix, catalog: jobCatalog([type]), logger, ...timing });
  worker.start();
  await own.enqueue(type, {}, { jobId: 'flaky-1' });
  await waitFor(async () => (await stateOf(own.queue, 'flaky-1')) === 'failed', 'the job to fail after its attempts');
  await worker.stop(5000);

  const failed = (await Job.fromId(own.queue, 'flaky-1'))!;
  expect(failed.attemptsMade).toBe(3);
  expect(failed.failedReason).toBe('the mail server is away (run 3)');
  expect(failed.opts.backoff).toEqual({ type: 'exponential', delay: 20 });
  expect(runs).toBe(3);
});

it('fails a job whose payload its type cannot parse for good, without running its handler', async () => {
  const own = ownPrefix();
  let runs = 0;
  const type: JobType<{ to: string }> = {
    name: 'test.strict', queue: 'runs', attempts: 3, backoffMs: 10, timeoutMs: 10_000,
    parse(data) {
      const d = data as { to?: unknown };
      if (typeof d?.to !== 'string') throw new Error('test.strict: "to" is missing');
      return { to: d.to };
    },
    async handle() { runs += 1; },
  };
  const worker = createWorker({ connection: connect(), prefix: own.prefix, catalog: jobCatalog([type as JobType]), logger, ...timing });
  worker.start();
  await own.queue.add('test.strict', { too: 'x' }, { jobId: 'strict-1', attempts: 3 });
  await waitFor(async () => (await stateOf(own.queue, 'strict-1')) === 'failed', 'the job to fail');
  await worker.stop(5000);

  const failed = (await Job.fromId(own.queue, 'strict-1'))!;
  expect(failed.attemptsMade).toBe(1);
  expect(failed.failedReason).toBe('test.strict: malformed payload (test.strict: "to" is missing)');
  expect(runs).toBe(0);
});

describe('a job that failed for good because its workers were lost', () => {
  it('is told apart by BullMQ\'s stalled counter, not by its message: lost after more stalls than allowed, not for a handler\'s own failure saying the same', async () => {
    const own = ownPrefix();
    const options = { connection: connect(), prefix: own.prefix, lockDuration: 2000, stalledInterval: 1000, maxStalledCount: 0 };
    // The first worker takes the job and is cut off (a forced close stops renewing its lock).
    let taken!: () => void;
    const started = new Promise<void>((resolve) => { taken = resolve; });
    const cutOffWorker = new Worker(QUEUE_NAMES.runs, async () => { taken(); await cutOff; }, options);
    await own.queue.add('test.lost', {}, { jobId: 'lost-1', attempts: 3 });
    await started;
    await cutOffWorker.close(true);
    // The next worker's stalled-job check finds the job without a lock: past maxStalledCount (0),
    // BullMQ fails it when it is fetched again. A job of this worker's own fails unrecoverably
    // with the very message BullMQ uses.
    const failures: Array<{ id: string | undefined; verdict: Error | undefined; stalled: number }> = [];
    const next = new Worker(QUEUE_NAMES.runs, async (job) => {
      if (job.name === 'test.own') throw new UnrecoverableError('job stalled more than allowable limit');
    }, { ...options, connection: connect() });
    next.on('failed', (job, err) => { if (job) failures.push({ id: job.id, verdict: finalFailureOf(job, err, 0), stalled: job.stalledCounter }); });
    await own.queue.add('test.own', {}, { jobId: 'own-1', attempts: 3 });
    await waitFor(async () => failures.length === 2, 'both jobs to fail');
    await next.close();

    const lost = failures.find((f) => f.id === 'lost-1')!;
    expect(lost.stalled).toBe(1);
    expect(lost.verdict).toBeInstanceOf(WorkersLostError);
    expect(lost.verdict).toMatchObject({ jobName: 'test.lost', losses: 1 });
    const failed = failures.find((f) => f.id === 'own-1')!;
    expect(failed.stalled).toBe(0);
    expect(failed.verdict).toBeInstanceOf(UnrecoverableError);
    expect(failed.verdict).not.toBeInstanceOf(WorkersLostError);
  }, 60_000);

  it('a run whose job failed for good on the service\'s own faults ends run.internal_error, even when their message speaks of locks', async () => {
    const own = ownPrefix();
    const ended: Array<{ runId: string; code: string }> = [];
    const type = {
      ...runReportJob({
        // The store's fault on every attempt, as PostgreSQL words a lock timeout.
        engine: { execute: async () => { throw new Error('canceling statement due to lock timeout'); } },
        timeoutMs: 10_000,
        active: createActiveRuns(),
        markLost: async (runId, error) => { ended.push({ runId, code: error.code }); },
      }),
      backoffMs: 10,
    };
    const worker = createWorker({ connection: connect(), prefix: own.prefix, catalog: jobCatalog([type as JobType]), logger, ...timing });
    worker.start();
    const runId = newId();
    await own.enqueue(type, { runId }, { jobId: runId });
    await waitFor(async () => ended.length === 1, 'the run to be ended');
    await worker.stop(5000);
    expect((await Job.fromId(own.queue, runId))!.attemptsMade).toBe(3);
    expect(ended).toEqual([{ runId, code: 'run.internal_error' }]);
    // Its workers lost too often: run.worker_lost.
    await type.onFinalFailure!({ runId }, new WorkersLostError(type.name, 3));
    expect(ended[1]).toEqual({ runId, code: 'run.worker_lost' });
  });
});
