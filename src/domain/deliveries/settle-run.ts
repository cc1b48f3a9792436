/**
 * A run's status from its delivery attempts, in the unit of work that records an attempt's end.
 * The caller locks the run's row first (lockForSettling), so the attempts of one run settle it
 * one at a time and the last one to end sees every other end:
 * - a run still delivering ends once no attempt is open (pending, sending, queued): success (or
 *   skipped) when none failed, partial when some were sent, failed delivery.all_failed when none
 *   was; cancelled when a cancellation was asked for meanwhile;
 * - a run that ended partial or failed by its deliveries takes the status its attempts now give
 *   (a resend or an automatic retry that succeeded), as RUN_TRANSITIONS.settle says.
 */
import { OPEN_ATTEMPT_STATUSES } from '../channels/model.js';
import type { AttemptTally } from '../channels/ports.js';
import { reportUpdated } from '../events/model.js';
import { runChanged, runUpdated } from '../runs/events.js';
import type { RunError, RunRecord, RunStatus, RunStep } from '../runs/model.js';
import type { TxRepos } from '../unit-of-work/ports.js';

/** A run's attempts by status, counted. */
export function tallyOf(attempts: Array<{ status: string }>): AttemptTally {
  const count = (s: string) => attempts.filter((a) => a.status === s).length;
  return { open: attempts.filter((a) => OPEN_ATTEMPT_STATUSES.has(a.status as never)).length, sent: count('sent'), failed: count('failed'), previewed: count('preview') };
}

/** The run's end once its last attempt settled; undefined while one is still open. */
export function deliveredOutcome(run: Pick<RunRecord, 'conditionMet' | 'cancelRequestedAt' | 'steps'>, tally: AttemptTally, now: Date)
  : { status: Exclude<RunStatus, 'pending' | 'running'>; error: RunError | null; steps: RunStep[] } | undefined {
  if (tally.open > 0) return undefined;
  const { sent, failed, previewed } = tally;
  const base = run.conditionMet === false ? 'skipped' : 'success';
  let status: Exclude<RunStatus, 'pending' | 'running'> = base;
  let error: RunError | null = null;
  let stepStatus: RunStep['status'] = 'success';
  let stepError: RunError | null = null;
  if (run.cancelRequestedAt) {
    status = 'cancelled';
    stepStatus = 'cancelled';
    error = { code: 'run.cancelled', message: 'The run was cancelled while it sent its deliveries' };
  } else if (failed > 0 && sent > 0) {
    status = 'partial';
    stepStatus = 'failed';
    stepError = { code: 'delivery.partial', message: `${failed} of ${sent + failed} deliveries failed` };
  } else if (failed > 0) {
    status = 'failed';
    stepStatus = 'failed';
    error = { code: 'delivery.all_failed', message: `Every delivery failed (${failed}); each delivery attempt says why` };
    stepError = error;
  }
  const steps = run.steps.map((s) => (s.name === 'delivery' && s.status === 'running'
    ? { ...s, status: stepStatus, finishedAt: now, error: stepError, detail: { sent, failed, previewed } }
    : s));
  return { status, error, steps };
}

/**
 * Settles the locked run after one of its attempts ended (in the same unit of work), from the
 * run's attempts by status (`tally`, read when not given); answers the run when it ended now (for
 * the caller's metrics).
 */
export async function settleRun(tx: Pick<TxRepos, 'attempts' | 'runs' | 'runEngine' | 'outbox'>, run: RunRecord, now: Date, tally?: AttemptTally): Promise<RunRecord | undefined> {
  if (run.status === 'running' && run.deliveringSince) {
    const outcome = deliveredOutcome(run, tally ?? tallyOf(await tx.attempts.listForRun(run.id)), now);
    if (!outcome) return undefined;
    const ended = await tx.runEngine.finish(run.id, run.attempts, { ...outcome, finishedAt: now });
    if (ended) await tx.outbox.add(runChanged(ended));
    return ended;
  }
  if (run.status === 'partial' || run.status === 'failed') {
    const settled = await tx.runs.settleDeliveries(run.id, now);
    // run.updated either way: readers refresh the run's attempts.
    await tx.outbox.add([
      runUpdated(settled ?? run),
      ...(settled ? [reportUpdated(run.reportId, 'ran', { lastRun: { id: run.id, status: settled.status } })] : []),
    ]);
  } else {
    await tx.outbox.add([runUpdated(run)]);
  }
  return undefined;
}
