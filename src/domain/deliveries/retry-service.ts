/**
 * Resending failed delivery attempts (POST /runs/{runId}/attempts/{attemptId}/retry and
 * POST /channels/{channelId}/retry-failed). The store moves an attempt failed → queued in one
 * statement, naming the resend's job, so two retries at once queue it once, an attempt already
 * sent is never queued, and a planned automatic retry is replaced; the job (delivery-worker.ts)
 * then sends it with the delivery's and channel's current settings, under the attempt's own id,
 * adding to its history. When a resend leaves no failed attempt on a partial (or all-failed)
 * run, the run becomes success.
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, notFound } from '../../core/errors.js';
import type { Log } from '../../core/log.js';
import type { AttemptRecord, ChannelAttemptRecord } from '../channels/model.js';
import type { Page, PageRequest } from '../../core/cursor.js';
import type { AttemptsRepo, ChannelsRepo, DeliveriesRepo } from '../channels/ports.js';
import { isFinished, type RunRecord } from '../runs/model.js';
import type { DeliveryQueue } from './ports.js';
import { resendJobId } from './delivery-worker.js';

/** How far back retry-failed looks, and how many it takes at most. */
export const RETRY_FAILED_WINDOW_MS = 7 * 24 * 3600_000;
export const RETRY_FAILED_LIMIT = 500;

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
  queue: Pick<DeliveryQueue, 'enqueue'>;
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
    const now = deps.clock.now();
    const jobId = resendJobId(attempt.id, now);
    const queued = await deps.attempts.queue(attempt.id, now, jobId);
    if (!queued) {
      // Someone else queued (or sent) it meanwhile: answer it as it is now.
      return { attempt: (await deps.attempts.find(attempt.id)) ?? attempt, queued: false };
    }
    try {
      await deps.queue.enqueue([{ attemptId: queued.id, runId: run.id, jobId, channelId: queued.channelId, deliveryId: queued.deliveryId }]);
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

    /** GET /channels/{id}/attempts: the channel's attempts, newest first (404 for an unknown channel). */
    async attemptsOfChannel(channelId: string, q: PageRequest): Promise<Page<ChannelAttemptRecord>> {
      if (!(await deps.channels.find(channelId))) throw notFound('channel');
      return deps.attempts.ofChannel(channelId, q);
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
