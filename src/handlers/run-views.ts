/** Runs on the wire (schemas Run and RunSummary). */
import type { components } from '../generated/openapi.js';
import type { RunRecord } from '../domain/runs/model.js';

type Run = components['schemas']['Run'];
type RunSummary = components['schemas']['RunSummary'];

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function runSummaryView(r: RunRecord): RunSummary {
  return {
    id: r.id,
    report_id: r.reportId,
    status: r.status,
    trigger: r.trigger,
    deliver: r.deliver,
    scheduled_for: iso(r.slot),
    row_count: r.rowCount,
    error: r.error,
    created_at: r.createdAt.toISOString(),
    started_at: iso(r.startedAt),
    finished_at: iso(r.finishedAt),
    duration_ms: r.startedAt && r.finishedAt ? Math.max(0, r.finishedAt.getTime() - r.startedAt.getTime()) : null,
  };
}

export function runView(r: RunRecord): Run {
  return {
    ...runSummaryView(r),
    created_by: r.createdBy,
    query_version: r.queryVersion,
    parameters: r.parameters,
    condition: r.condition,
    condition_met: r.conditionMet,
    columns: r.columns,
    sample: r.sample,
    steps: r.steps.map((s) => ({
      name: s.name, status: s.status, started_at: s.startedAt.toISOString(), finished_at: iso(s.finishedAt), error: s.error,
      ...(s.detail ? { detail: s.detail } : {}),
    })),
    has_result: r.resultKey !== null,
    attempts: r.attempts,
    cancel_requested_at: iso(r.cancelRequestedAt),
  };
}
