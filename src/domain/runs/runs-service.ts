/**
 * The runs API: read runs, queue manual and test runs (idempotent with an Idempotency-Key), and
 * cancel. A new run is committed with its events first (one unit of work) and enqueued after
 * (job id = run id); a run whose enqueue failed stays pending and the scheduler's sweep enqueues
 * it again, so nothing is lost.
 */
import { createHash } from 'node:crypto';
import { DomainError, notFound } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Clock } from '../../core/clock.js';
import type { Log } from '../../core/log.js';
import type { Page, PageRequest } from '../../core/cursor.js';
import { isFinished, type RunQueue, type RunRecord, type RunTrigger } from './model.js';
import type { RunFilter, RunsRepo } from './ports.js';
import type { AttemptRecord } from '../channels/model.js';
import type { AttemptsRepo } from '../channels/ports.js';
import { runCancelRequested } from '../events/model.js';
import { runChanged } from './events.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

/** How long an Idempotency-Key answers its first run: 24 hours (openapi.yaml's Idempotency-Key). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;

export interface QueueRunInput {
  reportId: string;
  trigger: Exclude<RunTrigger, 'schedule'>;
  deliver: boolean;
  userId: string;
  idempotencyKey?: string | undefined;
}

export function createRunsService(deps: {
  /** Reads; changes go through the unit of work, with their events. */
  runs: RunsRepo; uow: UnitOfWork; queue: RunQueue; clock: Clock; log: Log;
  /** The delivery attempts a run shows with it. */
  attempts: Pick<AttemptsRepo, 'listForRun'>;
  /** svc_runs_total for runs that end here (a pending run cancelled before any worker took it). */
  finished?: (status: RunRecord['status'], trigger: RunRecord['trigger']) => void;
}) {
  const enqueue = async (run: RunRecord) => {
    try {
      await deps.queue.enqueue(run.id, run.reportId);
    } catch (err) {
      // Committed but not queued: the scheduler's sweep enqueues pending runs whose job is missing.
      deps.log.warn('a run could not be queued now; the sweep will queue it', { run_id: run.id, report_id: run.reportId, err });
    }
  };

  return {
    /**
     * The run's delivery attempts, in delivery order. A pending run has none (its attempts are
     * planned by its hand-over, from running), so a run just queued costs no read.
     */
    attemptsOf(run: Pick<RunRecord, 'id' | 'status'>): Promise<AttemptRecord[]> {
      if (run.status === 'pending') return Promise.resolve([]);
      return deps.attempts.listForRun(run.id);
    },

    /** The run and its delivery attempts as of one moment (one statement). */
    async getWithAttempts(id: string): Promise<{ run: RunRecord; attempts: AttemptRecord[] }> {
      const found = await deps.runs.findWithAttempts(id);
      if (!found) throw notFound('run');
      return found;
    },

    list(filter: RunFilter, page: PageRequest): Promise<Page<RunRecord>> {
      return deps.runs.list(filter, page);
    },

    /** Queues a manual or test run; with an Idempotency-Key a repeat answers the first run. */
    async queue(input: QueueRunInput): Promise<RunRecord> {
      if (input.idempotencyKey === undefined) {
        // One statement: the run from its report, the report's last run and the run's events
        // (built from the run as it will be: pending, as runChanged of the inserted record).
        const id = newId();
        const createdAt = deps.clock.now();
        const created = await deps.runs.queue(
          { id, reportId: input.reportId, trigger: input.trigger, deliver: input.deliver, createdBy: input.userId, createdAt },
          runChanged({ id, reportId: input.reportId, trigger: input.trigger, status: 'pending', finishedAt: null, error: null }),
        );
        if (!created) throw notFound('report');
        deps.log.info('run queued', { run_id: created.id, report_id: created.reportId, trigger: created.trigger });
        await enqueue(created);
        return created;
      }
      const source = await deps.runs.runSource(input.reportId);
      if (!source) throw notFound('report');
      const now = deps.clock.now();
      const run = {
        id: newId(), reportId: source.id, trigger: input.trigger, deliver: input.deliver,
        parameters: source.parameters, condition: source.condition, createdBy: input.userId, createdAt: now,
      };
      // The run and its events commit together: announced before it is enqueued, so a worker's
      // "running" never arrives before "pending".
      const outcome = await deps.uow.run(async (tx): Promise<{ kind: 'created' | 'repeated'; run: RunRecord }> => {
        const operation = input.trigger === 'test' ? 'testDeliverReport' : 'runReport';
        const requestHash = createHash('sha256')
          .update(JSON.stringify({ operation, report_id: input.reportId, deliver: input.deliver })).digest('hex');
        const claimed = await tx.runs.insertIdempotent(run, {
          userId: input.userId, operation, key: input.idempotencyKey!, requestHash,
          notBefore: new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS),
        });
        if (claimed.kind === 'mismatch') {
          throw new DomainError('idempotency.mismatch', 'This Idempotency-Key was used within 24 hours for a different request');
        }
        // Gone: the report was deleted meanwhile, or (a repeat) its first run went with it.
        if (claimed.kind === 'gone') throw notFound('report');
        if (claimed.kind === 'created') await tx.outbox.add(runChanged(claimed.run));
        return claimed;
      });
      if (outcome.kind === 'repeated') return outcome.run;
      const created = outcome.run;
      deps.log.info('run queued', { run_id: created.id, report_id: created.reportId, trigger: created.trigger });
      await enqueue(created);
      return created;
    },

    /**
     * Cancels a pending run at once ('cancelled'), or asks the worker running it to stop
     * ('requested': its statement is cancelled on the database and it ends cancelled).
     * Answers the run as the cancellation left it, with its delivery attempts read in the same
     * transaction, after the run's row was updated: a hand-over or an end changes that row in the
     * statement that writes its attempts, so it waits for the cancellation's commit, and the
     * answer never pairs the run of one moment with the attempts of another.
     */
    async cancel(id: string): Promise<{ outcome: 'cancelled' | 'requested'; run: RunRecord; attempts: AttemptRecord[] }> {
      const now = deps.clock.now();
      // Each outcome commits with its events: the run's change, or the ask to the worker holding it.
      const attempt = await deps.uow.run(async (tx) => {
        const tried = await tx.runs.cancelPending(id, now);
        if (!tried?.cancelled) return tried && { ...tried, attempts: [] };
        await tx.outbox.add(runChanged(tried.run));
        return { ...tried, attempts: await tx.attempts.listForRun(id) };
      });
      if (!attempt) throw notFound('run');
      let { run } = attempt;
      if (attempt.cancelled) {
        deps.log.info('run cancelled before it started', { run_id: run.id, report_id: run.reportId });
        deps.finished?.(run.status, run.trigger);
        return { outcome: 'cancelled', run, attempts: attempt.attempts };
      }
      if (run.status === 'running') {
        const asked = await deps.uow.run(async (tx) => {
          const requested = await tx.runs.requestCancel(id, now);
          if (!requested?.requested) return requested && { ...requested, attempts: [] };
          await tx.outbox.add([runCancelRequested(requested.run.id, requested.run.reportId)]);
          return { ...requested, attempts: await tx.attempts.listForRun(id) };
        });
        if (!asked) throw notFound('run');
        run = asked.run;
        if (asked.requested) {
          deps.log.info('run cancellation asked for', { run_id: run.id, report_id: run.reportId });
          return { outcome: 'requested', run, attempts: asked.attempts };
        }
      }
      if (isFinished(run.status)) throw new DomainError('run.finished', `The run has already finished (${run.status})`);
      throw new Error(`run ${id} is ${run.status} after a cancellation attempt`);
    },
  };
}

export type RunsService = ReturnType<typeof createRunsService>;
