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
import { publishQuietly, reportUpdated, runUpdated, type ChangeEvent, type EventSink } from './events.js';
import type { PlannedRun, RunJobs, SchedulingStore } from './scheduling-ports.js';

/** Reports one transaction claims. */
export const CLAIM_BATCH = 500;
/** How long a new run may wait before the sweep looks at its job (it is enqueued after commit). */
export const SWEEP_AFTER_MS = 60_000;
/** Unfinished runs the sweep looks at per pass. */
const SWEEP_BATCH = 200;

export function createScheduling(deps: {
  store: SchedulingStore; jobs: RunJobs; events: EventSink; log: Log;
  /** svc_scheduler_lag_seconds: how late the latest due run was queued. */
  lag(seconds: number): void;
  /** Monotonic time in ms, for the lag (default Date.now). */
  wallNow?: () => number;
}) {
  const notify = (events: ChangeEvent[]) => publishQuietly(deps.events, events, (err) => deps.log.warn('a scheduling event could not be published', { err }));

  const plan = (now: Date) => (due: Parameters<Parameters<SchedulingStore['claimDue']>[2]>[0]): PlannedRun[] => due.map((r) => {
    let slot: Date;
    let next: Date | null;
    try {
      slot = latestDueSlot(r.schedule, r.nextRunAt, now);
      next = nextOccurrence(r.schedule, now);
    } catch (err) {
      // A schedule that no longer compiles (it was valid when saved): run the due time once, then stop scheduling it.
      deps.log.error('a report\'s schedule cannot be computed; it is not scheduled again', { report_id: r.id, err });
      slot = r.nextRunAt;
      next = null;
    }
    return { reportId: r.id, runId: newId(), slot, next, parameters: r.parameters, condition: r.condition };
  });

  return {
    /** Claims every due report into a run (in batches) and enqueues the runs. Answers how many were made. */
    async tick(now: Date): Promise<number> {
      let made = 0;
      for (;;) {
        const { claimed, created } = await deps.store.claimDue(now, CLAIM_BATCH, plan(now));
        if (created.length > 0) {
          try {
            await deps.jobs.enqueueMany(created.map((c) => ({ id: c.runId, reportId: c.reportId })));
          } catch (err) {
            deps.log.warn('due runs could not be queued now; the sweep will queue them', { count: created.length, err });
          }
          const queuedAt = (deps.wallNow ?? Date.now)();
          const latest = created.reduce((a, b) => (a.slot.getTime() >= b.slot.getTime() ? a : b));
          deps.lag(Math.max(0, (queuedAt - latest.slot.getTime()) / 1000));
          for (const c of created) deps.log.info('scheduled run queued', { run_id: c.runId, report_id: c.reportId, slot: c.slot.toISOString() });
          await notify(created.flatMap((c) => [
            runUpdated({ id: c.runId, reportId: c.reportId, status: 'pending', trigger: 'schedule', finishedAt: null, error: null }),
            reportUpdated(c.reportId, 'scheduled', { nextRunAt: c.next, lastRun: { id: c.runId, status: 'pending' } }),
          ]));
        }
        made += created.length;
        if (claimed < CLAIM_BATCH) return made;
      }
    },

    /**
     * Pending runs whose job is missing or over are enqueued again; running runs whose job is
     * missing or failed end failed with run.worker_lost.
     */
    async sweep(now: Date): Promise<{ requeued: number; lost: number }> {
      const stale = await deps.store.unfinishedBefore(new Date(now.getTime() - SWEEP_AFTER_MS), SWEEP_BATCH);
      let requeued = 0;
      let lost = 0;
      for (const run of stale) {
        const state = await deps.jobs.state(run.id);
        if (run.status === 'pending' && ['missing', 'completed', 'failed'].includes(state)) {
          await deps.jobs.requeue(run);
          requeued += 1;
          deps.log.warn('pending run had no job; queued again', { run_id: run.id, report_id: run.reportId, job_state: state });
        } else if (run.status === 'running' && ['missing', 'completed', 'failed'].includes(state)) {
          const ended = await deps.store.markLost(run.id, {
            code: 'run.worker_lost', message: 'The worker running it stopped (crashed or was killed) and its job is gone',
          }, now);
          if (ended) {
            lost += 1;
            deps.log.error('running run had no job; ended failed', { run_id: run.id, report_id: run.reportId, job_state: state });
            await notify([runUpdated(ended)]);
          }
        }
      }
      return { requeued, lost };
    },
  };
}

export type Scheduling = ReturnType<typeof createScheduling>;
