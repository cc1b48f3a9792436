/** A run's change events, built from the run record (one builder per kind). */
import { reportUpdated, type ChangeEvent } from '../events/model.js';
import type { RunRecord } from './model.js';

export function runUpdated(run: Pick<RunRecord, 'id' | 'reportId' | 'status' | 'trigger' | 'finishedAt' | 'error'>): ChangeEvent {
  return {
    type: 'run.updated',
    data: {
      id: run.id, report_id: run.reportId, status: run.status, trigger: run.trigger,
      ...(run.finishedAt ? { finished_at: run.finishedAt.toISOString() } : {}),
      ...(run.error ? { error_code: run.error.code } : {}),
    },
  };
}

/**
 * A run changed: its run.updated and its report's report.updated (the report's last run is this
 * one, with this status). The one builder of the pair every run change sends.
 */
export function runChanged(run: Pick<RunRecord, 'id' | 'reportId' | 'status' | 'trigger' | 'finishedAt' | 'error'>): ChangeEvent[] {
  return [runUpdated(run), reportUpdated(run.reportId, 'ran', { lastRun: { id: run.id, status: run.status } })];
}
