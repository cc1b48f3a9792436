/**
 * Resending failed delivery attempts (POST /runs/{runId}/attempts/{attemptId}/retry and
 * POST /channels/{channelId}/retry-failed). The store moves an attempt failed → queued in one
 * statement, so two retries at once queue it once and an attempt already sent is never queued;
 * a worker then claims it (queued → sending) and sends it with the delivery's and channel's
 * current settings, under the attempt's own id. When a resend leaves no failed attempt on a
 * partial (or all-failed) run, the run becomes success.
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, notFound } from '../../core/errors.js';
import type { Log } from '../../core/log.js';
import type { AttemptRecord } from '../channels/model.js';
import type { AttemptsRepo, ChannelsRepo, DeliveriesRepo } from '../channels/ports.js';
import { isFinished, type RunRecord } from '../runs/model.js';
import { reportUpdated } from '../events/model.js';
import { runUpdated } from '../runs/events.js';
import type { DeliveryContextSource } from './deliveries-service.js';
import type { DeliverySender, SettleRun } from './sender.js';

/** How far back retry-failed looks, and how many it takes at most. */
export const RETRY_FAILED_WINDOW_MS = 7 * 24 * 3600_000;
export const RETRY_FAILED_LIMIT = 500;

export interface ResendQueue {
  enqueue(attemptId: string, runId: string): Promise<void>;
}

export interface RunSettling {
  find(runId: string): Promise<RunRecord | undefined>;
  /** Recomputes a finished partial/failed-by-deliveries run's status from its attempts; the run after when it changed. */
  settleDeliveries(runId: string, now: Date): Promise<RunRecord | undefined>;
}

export function createRetryService(deps: {
  attempts: AttemptsRepo;
  deliveries: Pick<DeliveriesRepo, 'findById'>;
  channels: Pick<ChannelsRepo, 'find'>;
  runs: RunSettling;
  queue: ResendQueue;
  clock: Clock;
  log: Log;
}) {
  const queueOne = async (attempt: AttemptRecord, run: RunRecord): Promise<{ attempt: AttemptRecord; queued: boolean }> => {
    if (attempt.status === 'preview') throw new DomainError('delivery.attempt_not_failed', 'A test run\'s preview is never sent; run the report instead');
    if (attempt.status !== 'failed') return { attempt, queued: false };
    if (!isFinished(run.status)) throw new DomainError('run.unfinished', 'The run is still sending its deliveries; retry once it has finished');
    const delivery = attempt.deliveryId ? await deps.deliveries.findById(attempt.deliveryId) : undefined;
    if (!delivery || !(await deps.channels.find(delivery.channelId))) {
      throw new DomainError('delivery.gone', 'The attempt\'s delivery or its channel no longer exists');
    }
    const queued = await deps.attempts.queue(attempt.id, deps.clock.now());
    if (!queued) {
      // Someone else queued (or sent) it meanwhile: answer it as it is now.
      return { attempt: (await deps.attempts.find(attempt.id)) ?? attempt, queued: false };
    }
    try {
      await deps.queue.enqueue(queued.id, run.id);
    } catch (err) {
      deps.log.warn('a delivery resend could not be queued now; the sweep will queue it', { run_id: run.id, report_id: run.reportId, attempt_id: attempt.id, err });
    }
    return { attempt: queued, queued: true };
  };

  return {
    async retryAttempt(runId: string, attemptId: string): Promise<{ attempt: AttemptRecord; queued: boolean }> {
      const attempt = await deps.attempts.find(attemptId);
      if (!attempt || attempt.runId !== runId) throw notFound('delivery attempt');
      const run = await deps.runs.find(runId);
      if (!run) throw notFound('run');
      return queueOne(attempt, run);
    },

    async retryFailedOfChannel(channelId: string): Promise<AttemptRecord[]> {
      if (!(await deps.channels.find(channelId))) throw notFound('channel');
      const failed = await deps.attempts.failedOfChannel(channelId, new Date(deps.clock.now().getTime() - RETRY_FAILED_WINDOW_MS), RETRY_FAILED_LIMIT);
      const queued: AttemptRecord[] = [];
      for (const attempt of failed) {
        const run = await deps.runs.find(attempt.runId);
        if (!run || !isFinished(run.status)) continue;
        try {
          const outcome = await queueOne(attempt, run);
          if (outcome.queued) queued.push(outcome.attempt);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err; // a delivery gone meanwhile: skip it
        }
      }
      return queued;
    },
  };
}

/** The worker's half: claim a queued attempt, send it, settle the run. */
export function createResendWorker(deps: {
  attempts: AttemptsRepo;
  /** Reads; the run's settling goes through the unit of work, with its events. */
  runs: Pick<RunSettling, 'find'>;
  context: Pick<DeliveryContextSource, 'runContext'>;
  sender: Pick<DeliverySender, 'resend'>;
  clock: Clock;
  log: Log;
}) {
  return {
    async resend(attemptId: string, signal: AbortSignal): Promise<void> {
      const attempt = await deps.attempts.claim(attemptId, deps.clock.now());
      if (!attempt) {
        deps.log.info('delivery resend not taken: the attempt is gone, sent or not queued', { attempt_id: attemptId });
        return;
      }
      const run = await deps.runs.find(attempt.runId);
      const context = run ? await deps.context.runContext(run.reportId, run.createdBy) : undefined;
      if (!run || !context) {
        await deps.attempts.finish(attempt.id, { status: 'failed', sends: 0, finishedAt: deps.clock.now(), statusCode: null, peerMessageId: null, detail: null,
          error: { code: 'delivery.gone', message: 'The run or its report no longer exists' } });
        return;
      }
      const log = deps.log.child({ run_id: run.id, report_id: run.reportId });
      // The run's new status and its events commit with the attempt's end (one unit of work).
      const settle: SettleRun = async (tx) => {
        const settled = await tx.runs.settleDeliveries(run.id, deps.clock.now());
        await tx.outbox.add([
          runUpdated(settled ?? run),
          ...(settled ? [reportUpdated(run.reportId, 'ran', { lastRun: { id: run.id, status: settled.status } })] : []),
        ]);
      };
      const ended = await deps.sender.resend(attempt, run, context, signal, log, settle);
      log.info('delivery resent', { attempt_id: attempt.id, status: ended.status });
    },

    /** The job failed for good: the attempt must not stay queued or sending. */
    async giveUp(attemptId: string, error: Error): Promise<void> {
      await deps.attempts.finish(attemptId, { status: 'failed', sends: 0, finishedAt: deps.clock.now(), statusCode: null, peerMessageId: null, detail: null,
        error: { code: 'delivery.worker_lost', message: 'The resend could not be completed (its worker failed); retry it again' } });
      deps.log.warn('delivery resend failed for good', { attempt_id: attemptId, err: error.message });
    },
  };
}
