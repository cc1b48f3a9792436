/**
 * Deliveries as jobs of their own. A run's result file made, each delivery it sends has its
 * attempt (pending, committed with the run's progress) and a job on the deliveries queue, apart
 * from the runs' queue and with its own concurrency, so a receiver that hangs holds up no run.
 *
 * A job takes its attempt (only the job the attempt names does, so a stale or repeated job sends
 * nothing), passes the channel's gate (at most SVC_DELIVERY_CHANNEL_LIMIT sends in flight to one
 * channel; a busy channel's job waits on the queue holding no worker; an open circuit fails it
 * fast with delivery.channel_failing), sends with its quick retries, and records the end in one
 * unit of work with the run's settling (the last attempt ends the run: settle-run.ts), the
 * channel's health and their events. A transient failure gets an automatic retry on the schedule
 * (nextRetry: delayed jobs, surviving restarts; the sweep re-queues one whose job went missing);
 * a permanent one does not.
 *
 * A send stopped by a shutdown records the requests it made and stays sending: its job is handed
 * back and the next worker sends it again under the same id (webhook-id), so receivers
 * deduplicate. Stopped by its run's cancellation it ends run.cancelled, by its job's time limit
 * delivery.timeout (retried on the schedule).
 */
import type { Clock } from '../../core/clock.js';
import type { Log } from '../../core/log.js';
import type { AttemptRecord } from '../channels/model.js';
import { OPEN_ATTEMPT_STATUSES } from '../channels/model.js';
import type { AttemptEnd, AttemptsRepo, DeliveriesRepo } from '../channels/ports.js';
import { channelHealthChanged } from '../events/model.js';
import type { DeliveringStatus, DeliverRun, DeliveryJob, PlannedDelivery } from '../runs/engine-ports.js';
import type { RunRecord, RunStatus, RunTrigger } from '../runs/model.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import type { AttemptEnds, ChannelGate, DeliveryQueue, GatePass, SendingContextSource } from './ports.js';
import { DeliveryTimedOut, nextRetry, stoppedBy, type SendOutcome } from './send-with-retries.js';
import { permanent, type DeliverySender } from './sender.js';
import { settleRun } from './settle-run.js';

/** The automatic retry schedule (SVC_DELIVERY_RETRY_SCHEDULE, SVC_DELIVERY_RETRY_MAX_HOURS). */
export interface RetrySchedule {
  waitsMs: readonly number[];
  maxAgeMs: number;
}

export interface DeliveryMetrics {
  sent(channelType: string, status: 'sent' | 'failed', seconds: number): void;
  runFinished(status: RunStatus, trigger: RunTrigger, seconds: number): void;
}

/** The job id of an attempt's automatic retry number `n`, and of a person's resend. */
export const retryJobId = (attemptId: string, n: number): string => `deliver-${attemptId}-retry-${n}`;
export const resendJobId = (attemptId: string, at: Date): string => `deliver-${attemptId}-resend-${at.getTime()}`;

export { DeliveryTimedOut };

/** An attempt taken by its job, with what sending it reads. */
type Taken = NonNullable<Awaited<ReturnType<SendingContextSource['takeWithContext']>>>;

/** How a job ended: done, or to be tried again after `deferMs` (its channel was busy). */
export type DeliverOutcome = { deferMs?: number };

export function createDeliveryWorker(deps: {
  /** The take with what a send reads, and the end with the run's settling, one round trip each. */
  attempts: Pick<AttemptsRepo, 'handBack'> & SendingContextSource & AttemptEnds;
  sender: Pick<DeliverySender, 'send'>;
  gate: ChannelGate;
  /** SVC_DELIVERY_CHANNEL_LIMIT. */
  channelLimit: number;
  schedule: RetrySchedule;
  queue: Pick<DeliveryQueue, 'enqueue'>;
  uow: UnitOfWork;
  metrics: DeliveryMetrics;
  clock: Clock;
  log: Log;
}) {
  const { clock } = deps;

  /**
   * Records an attempt's end with the run's settling, the channel's health and their events (one
   * unit of work; the run's row locked first, then the attempt's, then the channel's), then
   * queues its automatic retry when one is planned.
   */
  async function record(attempt: AttemptRecord, outcome: SendOutcome, log: Log, notBefore?: number): Promise<void> {
    const now = clock.now();
    const planned = outcome.end.status === 'failed'
      ? nextRetry(deps.schedule, attempt, { transient: outcome.transient, retryAfterMs: outcome.retryAfterMs, notBefore }, now) : null;
    const retry = planned ? { ...planned, jobId: retryJobId(attempt.id, planned.retries) } : undefined;
    const end: AttemptEnd = { ...outcome.end, finishedAt: now, retry };
    const { runEnded, health } = await recordEnd(attempt, end);
    // Per delivery at debug (at a few hundred a second, info would be the worker's main work); failures stay warnings.
    if (end.status === 'sent') log.debug('delivery sent', { attempt_id: attempt.id, sends: end.sends, status_code: end.statusCode });
    else if (end.status === 'failed') {
      log.warn('delivery failed', {
        attempt_id: attempt.id, sends: end.sends, error_code: end.error?.code, error: end.error?.message,
        ...(retry ? { next_retry_at: retry.at.toISOString() } : {}),
      });
    }
    if (health) log.info('channel health changed', { health: health.after, previous: health.before });
    if (runEnded) {
      const seconds = runEnded.startedAt && runEnded.finishedAt ? Math.max(0, (runEnded.finishedAt.getTime() - runEnded.startedAt.getTime()) / 1000) : 0;
      deps.metrics.runFinished(runEnded.status, runEnded.trigger, seconds);
      log.info('run finished', { status: runEnded.status, seconds, ...(runEnded.error ? { error_code: runEnded.error.code } : {}) });
    }
    if (retry) {
      try {
        await deps.queue.enqueue([{
          attemptId: attempt.id, runId: attempt.runId, jobId: retry.jobId, channelId: attempt.channelId, deliveryId: attempt.deliveryId, delayMs: retry.at.getTime() - now.getTime(),
        }]);
      } catch (err) {
        log.warn('a delivery\'s automatic retry could not be queued now; the sweep queues it when it is due', { attempt_id: attempt.id, err });
      }
    }
  }

  /**
   * The end in one round trip when the run is simply delivering (attemptEnds); otherwise (the run
   * ended meanwhile and a later send settles it, a cancellation asked for) in a unit of work that
   * locks the run's row first, then the attempt's, then the channel's.
   */
  async function recordEnd(attempt: AttemptRecord, end: AttemptEnd)
    : Promise<{ runEnded: RunRecord | undefined; health: { before: string; after: string } | undefined }> {
    const fast = await deps.attempts.endAttempt(attempt.id, attempt.runId, end);
    if (fast.kind === 'gone') return { runEnded: undefined, health: undefined };
    if (fast.kind === 'ended') {
      return { runEnded: fast.runEnded, health: fast.health && fast.health.before !== fast.health.after ? fast.health : undefined };
    }
    return deps.uow.run(async (tx) => {
      const run = await tx.runs.lockForSettling(attempt.runId);
      if (!run) return { runEnded: undefined, health: undefined };
      const finished = await tx.attempts.finishAndTally(attempt.id, run.id, end);
      if (!finished) return { runEnded: undefined, health: undefined };
      const ended = await settleRun(tx, run, end.finishedAt, finished.tally);
      const changed = finished.health && finished.health.before !== finished.health.after ? finished.health : undefined;
      if (changed) await tx.outbox.add([channelHealthChanged(attempt.channelId!, changed.after, changed.before)]);
      return { runEnded: ended, health: changed };
    });
  }

  /** An attempt whose job must stop short of sending. */
  const failNow = (error: { code: string; message: string }, transient = false): SendOutcome => ({ ...permanent(error), transient });

  /** Sends a taken attempt and records its end; answers whether the peer answered (for the channel's circuit). */
  async function send(taken: Taken, pass: GatePass | undefined, signal: AbortSignal, log0: Log): Promise<boolean> {
    const { attempt, run, context, delivery, channel } = taken;
    const log = log0.child({ report_id: run.reportId, channel: attempt.channelName, channel_type: attempt.channelType, delivery_id: attempt.deliveryId });
    if (run.status === 'running' && run.cancelRequestedAt) {
      await record(attempt, failNow({ code: 'run.cancelled', message: 'The run was cancelled before this delivery was sent' }), log);
      return false;
    }
    if (pass?.kind === 'open') {
      await record(attempt, failNow({ code: 'delivery.channel_failing', message: 'The channel\'s recent sends failed one after another, so it was not tried now; it is retried automatically' }, true),
        log, pass.until);
      return false;
    }
    if (!delivery || !channel) {
      await record(attempt, failNow({ code: 'delivery.gone', message: 'The delivery or its channel was removed, so the attempt cannot be sent' }), log);
      return false;
    }
    const started = performance.now();
    const result = await deps.sender.send(attempt, run, context, delivery, channel, signal, log, {
      onSend: async (ok) => {
        if (!ok) await deps.gate.recordFailure(channel.id).catch((err: unknown) => log.warn('the channel\'s circuit could not be updated', { err }));
      },
      mayRetry: async () => !(await deps.gate.isOpen(channel.id).catch(() => false)),
    });
    if (result.kind === 'stopped') {
      const stopped = stoppedBy(result.reason);
      if (stopped) {
        await record(attempt, { end: { status: 'failed', sends: result.sends, statusCode: null, peerMessageId: null, detail: null, error: stopped, history: result.history },
          transient: result.reason instanceof DeliveryTimedOut, retryAfterMs: null }, log);
        log.warn('delivery stopped', { attempt_id: attempt.id, sends: result.sends, error_code: stopped.code });
        return false;
      }
      // A shutdown: keep what was sent, leave it sending; the job is handed back (rethrown to the caller).
      await deps.attempts.handBack(attempt.id, { sends: result.sends, now: clock.now(), history: result.history })
        .catch((e: unknown) => log.warn('could not record the sends of a delivery handed back', { attempt_id: attempt.id, err: e }));
      log.info('delivery handed back unfinished; the next worker sends it again', { attempt_id: attempt.id, sends: result.sends });
      throw result.reason instanceof Error ? result.reason : new Error(String(result.reason));
    }
    const { end } = result.outcome;
    if (end.status !== 'preview') deps.metrics.sent(channel.type, end.status === 'sent' ? 'sent' : 'failed', (performance.now() - started) / 1000);
    await record(attempt, result.outcome, log);
    // The peer answered: it took the message, or refused it for good (a 4xx shows it is up).
    return end.status === 'sent' || (end.status === 'failed' && !result.outcome.transient && end.sends > 0);
  }

  return {
    /**
     * Carries one attempt's job: take, gate, send, record. Answers deferMs when the channel was
     * busy (the job waits on the queue and comes back).
     */
    async deliver(job: DeliveryJob, signal: AbortSignal): Promise<DeliverOutcome> {
      const log = deps.log.child({ run_id: job.runId, attempt_id: job.attemptId });
      const pass = job.channelId ? await deps.gate.enter(job.channelId, deps.channelLimit) : undefined;
      if (pass?.kind === 'busy') return { deferMs: pass.retryInMs };
      let answered = false;
      try {
        // Stopped while it waited for its place (a worker shutting down): the attempt stays pending for the next worker.
        if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
        const taken = await deps.attempts.takeWithContext(job.attemptId, job.jobId, job.deliveryId, clock.now());
        if (!taken) {
          log.info('delivery job not taken: its attempt is gone, ended or carried by another job');
          return {};
        }
        answered = await send(taken, pass, signal, log);
        return {};
      } finally {
        if (pass?.kind === 'go') await pass.release(answered).catch((err: unknown) => log.warn('could not release the channel\'s place in flight', { err }));
      }
    },

    /** The job failed for good (its workers lost too often, or the store failing): the attempt ends failed and the run settles. */
    async giveUp(job: DeliveryJob, error: { code: string; message: string }): Promise<void> {
      const now = clock.now();
      const ended = await deps.uow.run(async (tx) => {
        const attempt = await tx.attempts.find(job.attemptId);
        if (!attempt || attempt.jobId !== job.jobId || !OPEN_ATTEMPT_STATUSES.has(attempt.status)) return undefined;
        const run = await tx.runs.lockForSettling(attempt.runId);
        if (!(await tx.attempts.giveUp(attempt.id, error, now)) || !run) return undefined;
        return settleRun(tx, run, now);
      });
      deps.log.warn('delivery job failed for good; its attempt ends failed', { attempt_id: job.attemptId, run_id: job.runId, error_code: error.code });
      if (ended) deps.metrics.runFinished(ended.status, ended.trigger, ended.startedAt && ended.finishedAt ? (ended.finishedAt.getTime() - ended.startedAt.getTime()) / 1000 : 0);
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;

/** The run engine's DeliverRun: which deliveries a run sends, and their jobs to the queue. */
export function createDeliveryPlanner(deps: { deliveries: Pick<DeliveriesRepo, 'list'>; queue: Pick<DeliveryQueue, 'enqueue'> }): DeliverRun {
  return {
    async plan(reportId: string, runStatus: DeliveringStatus): Promise<PlannedDelivery[]> {
      const all = await deps.deliveries.list(reportId);
      return all.filter((d) => runStatus === 'success' || d.settings.sendWhenSkipped).map((d) => ({
        deliveryId: d.id, channelId: d.channelId, channelName: d.channelName, channelType: d.channelType, position: d.position,
      }));
    },
    async enqueue(jobs: DeliveryJob[]) {
      await deps.queue.enqueue(jobs);
    },
  };
}

/** How long an attempt may sit open (or its automatic retry overdue) before the sweep looks at its job. */
export const DELIVERY_SWEEP_AFTER_MS = 60_000;

/**
 * The sweep's half for deliveries: attempts that sat open (pending, sending, queued) for a
 * minute, or whose automatic retry is a minute overdue, are looked up on the queue; one whose job
 * is gone (Redis lost it, an enqueue failed after the commit) or finished without ending it gets
 * a new job, named on the attempt first so that the old one, should it come back, takes nothing.
 */
export function createDeliverySweep(deps: {
  attempts: Pick<AttemptsRepo, 'stuck' | 'rejob'>;
  queue: DeliveryQueue;
  log: Log;
}) {
  return async function sweepDeliveries(now: Date): Promise<{ requeued: number }> {
    const stuck = await deps.attempts.stuck(new Date(now.getTime() - DELIVERY_SWEEP_AFTER_MS), 500);
    let requeued = 0;
    for (const a of stuck) {
      const state = a.jobId ? await deps.queue.state(a.jobId) : 'missing';
      if (state === 'waiting' || state === 'active' || state === 'delayed' || state === 'prioritized') continue;
      const jobId = `deliver-${a.id}-sweep-${now.getTime()}`;
      if (!(await deps.attempts.rejob(a.id, a.jobId, jobId))) continue;
      await deps.queue.enqueue([{ attemptId: a.id, runId: a.runId, jobId, channelId: a.channelId, deliveryId: a.deliveryId }]);
      requeued += 1;
    }
    if (requeued > 0) deps.log.warn('deliveries whose job went missing were queued again', { requeued });
    return { requeued };
  };
}
