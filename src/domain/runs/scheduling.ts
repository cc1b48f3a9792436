/**
 * Scheduling: what is due comes from reports.next_run_at in the store, never from a timer's own
 * matching. Each tick claims due reports in batches, one transaction per batch with FOR UPDATE
 * SKIP LOCKED, so several schedulers share the work and never make the same run twice (the
 * store's unique key on report and slot is the proof). A report runs once for its latest missed
 * time after downtime. Runs are enqueued after their transaction commits; one whose enqueue
 * failed stays pending and the sweep enqueues it again. The sweep also ends runs whose job is
 * gone for good, so no run stays pending or running forever.
 */
import { newId } from '../../core/ids.js';
import type { Log } from '../../core/log.js';
import { latestDueSlot, nextOccurrence } from '../schedules/schedule.js';
import { reportUpdated } from '../events/model.js';
import { runUpdated } from './events.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import type { DueReport, PlannedRun, RunJobs, SchedulingStore } from './scheduling-ports.js';
import { MAX_RUN_STARTS, type RunRecord } from './model.js';

/** Reports one transaction claims. */
export const CLAIM_BATCH = 500;
/** How long a new run may wait before the sweep looks at its job (it is enqueued after commit). */
export const SWEEP_AFTER_MS = 20_000;
/**
 * A run's lease: its worker renews it every CANCEL_POLL_MS (2 s) while it runs; the sweep counts
 * the worker lost after SVC_WORKER_LOCK_SECONDS without a renewal, and never sooner than 10 s.
 */
export const runLeaseMs = (workerLockSeconds: number): number => Math.max(10_000, workerLockSeconds * 1000);
/** Runs whose enqueue failed that a scheduler keeps to try again on its next ticks. */
const UNQUEUED_MAX = 50_000;
/** Unfinished runs the sweep looks at per pass. */
const SWEEP_BATCH = 200;

export function createScheduling(deps: {
  store: SchedulingStore; uow: UnitOfWork; jobs: RunJobs; log: Log;
  /**
   * How long a running run's worker may go without renewing its lease (heartbeat_at, renewed every
   * couple of seconds while it runs) before the sweep counts the worker as lost.
   */
  leaseMs: number;
  /** svc_scheduler_lag_seconds: how late the latest due run was queued. */
  lag(seconds: number): void;
  /** Monotonic time in ms, for the lag (default Date.now). */
  wallNow?: () => number;
  /** svc_runs_total for runs the sweep ends. */
  finished?: (status: 'failed', trigger: RunRecord['trigger']) => void;
}) {
  /** Where the sweep goes on next pass: it pages through every unfinished run, a page per pass. */
  let sweepCursor: { createdAt: Date; id: string } | undefined;
  /**
   * Runs this scheduler made whose enqueue failed (Redis away): every tick tries them again, so
   * they are queued as soon as Redis answers, not when the sweep comes round. Bounded: past it
   * (a long outage) the sweep queues the rest.
   */
  let unqueued: Array<{ id: string; reportId: string }> = [];

  /**
   * The runs of due reports. `times` remembers, for this tick's `now`, the slot and next time of
   * each schedule and due time seen: the reports due in one minute mostly share a few schedules,
   * and the time-zone arithmetic is most of a claim's own work.
   */
  const plan = (now: Date, due: DueReport[], times: Map<string, { slot: Date; next: Date | null }>): PlannedRun[] => due.map((r) => {
    const key = `${r.schedule.cron}\u0000${r.schedule.timezone}\u0000${r.nextRunAt.getTime()}`;
    let known = times.get(key);
    if (!known) {
      try {
        known = { slot: latestDueSlot(r.schedule, r.nextRunAt, now), next: nextOccurrence(r.schedule, now) };
        times.set(key, known);
      } catch (err) {
        // A schedule that no longer compiles (it was valid when saved): run the due time once, then stop scheduling it.
        deps.log.error('a report\'s schedule cannot be computed; it is not scheduled again', { report_id: r.id, err });
        known = { slot: r.nextRunAt, next: null };
      }
    }
    return { reportId: r.id, runId: newId(), slot: known.slot, next: known.next, parameters: r.parameters, condition: r.condition };
  });

  return {
    /** Claims every due report into a run (in batches) and enqueues the runs. Answers how many were made. */
    async tick(now: Date): Promise<number> {
      if (unqueued.length > 0) {
        const retry = unqueued;
        try {
          await deps.jobs.enqueueMany(retry);
          unqueued = [];
          deps.log.info('runs whose enqueue had failed are queued now', { count: retry.length });
        } catch (err) {
          deps.log.warn('runs still cannot be queued; trying again next tick', { count: retry.length, err });
        }
      }
      let made = 0;
      let worstLag = 0;
      const times = new Map<string, { slot: Date; next: Date | null }>();
      for (;;) {
        // One unit of work per batch: the runs and their events commit together, before they are
        // enqueued (a worker's "running" always comes after "pending").
        const { claimed, created } = await deps.uow.run(async (tx) => {
          const due = await tx.scheduleClaims.lockDue(now, CLAIM_BATCH);
          if (due.length === 0) return { claimed: 0, created: [] };
          const made = await tx.scheduleClaims.createRuns(plan(now, due, times), now);
          await tx.outbox.add(made.flatMap((c) => [
            runUpdated({ id: c.runId, reportId: c.reportId, status: 'pending', trigger: 'schedule', finishedAt: null, error: null }),
            reportUpdated(c.reportId, 'scheduled', { nextRunAt: c.next, lastRun: { id: c.runId, status: 'pending' } }),
          ]));
          return { claimed: due.length, created: made };
        });
        if (created.length > 0) {
          try {
            await deps.jobs.enqueueMany(created.map((c) => ({ id: c.runId, reportId: c.reportId })));
          } catch (err) {
            deps.log.warn('due runs could not be queued now; the next tick tries again', { count: created.length, err });
            const room = Math.max(0, UNQUEUED_MAX - unqueued.length);
            unqueued.push(...created.slice(0, room).map((c) => ({ id: c.runId, reportId: c.reportId })));
          }
          const queuedAt = (deps.wallNow ?? Date.now)();
          // The lag of the latest due run: the latest slot of this tick and how late it was queued.
          const latest = created.reduce((a, b) => (a.slot.getTime() >= b.slot.getTime() ? a : b));
          worstLag = Math.max(worstLag, (queuedAt - latest.slot.getTime()) / 1000);
          // One line per run for tracing (debug: a minute with 100,000 due reports would make as many lines); the tick's count is info.
          for (const c of created) deps.log.debug('scheduled run queued', { run_id: c.runId, report_id: c.reportId, slot: c.slot.toISOString() });
        }
        made += created.length;
        if (claimed < CLAIM_BATCH) {
          if (made > 0) deps.lag(Math.max(0, worstLag));
          return made;
        }
      }
    },

    /**
     * Pending runs whose job is missing or over are enqueued again; running runs whose worker's
     * lease ran out and whose job is gone are enqueued again or, past MAX_RUN_STARTS, end failed
     * with run.worker_lost.
     */
    async sweep(now: Date): Promise<{ requeued: number; lost: number }> {
      const stale = await deps.store.unfinishedBefore(new Date(now.getTime() - SWEEP_AFTER_MS), SWEEP_BATCH, sweepCursor, deps.leaseMs);
      const last = stale[stale.length - 1];
      sweepCursor = stale.length < SWEEP_BATCH || !last ? undefined : { createdAt: last.createdAt, id: last.id };
      let requeued = 0;
      let lost = 0;
      for (const run of stale) {
        try {
          const outcome = await sweepOne(run, now);
          if (outcome === 'requeued') requeued += 1;
          if (outcome === 'lost') lost += 1;
        } catch (err) {
          deps.log.warn('the sweep could not look at a run; it tries again next time', { run_id: run.id, report_id: run.reportId, err });
        }
      }
      return { requeued, lost };
    },
  };

  /**
   * A pending run without a live job is queued again. A running run comes here only when its
   * worker stopped renewing its lease: while its job is still in Redis, BullMQ's stalled-job check
   * gives it to another worker; when the job is gone too (Redis lost it), the sweep queues it again,
   * until MAX_RUN_STARTS starts, then ends it failed (run.worker_lost). A live worker's run is never
   * touched, whatever Redis says: it renews its lease and finishes.
   */
  async function sweepOne(run: { id: string; reportId: string; status: RunRecord['status']; attempts: number }, now: Date): Promise<'requeued' | 'lost' | undefined> {
    const state = await deps.jobs.state(run.id);
    if (!['missing', 'completed', 'failed'].includes(state)) return undefined;
    if (run.status === 'pending') {
      await deps.jobs.requeue(run);
      deps.log.warn('pending run had no job; queued again', { run_id: run.id, report_id: run.reportId, job_state: state });
      return 'requeued';
    }
    if (run.attempts < MAX_RUN_STARTS) {
      await deps.jobs.requeue(run);
      deps.log.warn('running run lost its worker and its job; queued again for another worker', {
        run_id: run.id, report_id: run.reportId, job_state: state, attempts: run.attempts,
      });
      return 'requeued';
    }
    const ended = await deps.store.markLost(run.id, {
      code: 'run.worker_lost', message: `The workers running it stopped (crashed or were killed) ${run.attempts} times`,
    }, now, deps.leaseMs);
    if (!ended) return undefined;
    deps.log.error('running run lost its worker too often; ended failed', { run_id: run.id, report_id: run.reportId, job_state: state, attempts: run.attempts });
    deps.finished?.('failed', ended.trigger);
    return 'lost';
  }
}

export type Scheduling = ReturnType<typeof createScheduling>;
