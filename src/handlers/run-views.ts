/** Runs on the wire (schemas Run and RunSummary). */
import type { components } from '../generated/openapi.js';
import type { RunRecord } from '../domain/runs/model.js';
import type { Condition } from '../domain/reports/model.js';
import type { AttemptRecord, RenderedMessage } from '../domain/channels/model.js';

type Run = components['schemas']['Run'];
type RunSummary = components['schemas']['RunSummary'];
type DeliveryAttempt = components['schemas']['DeliveryAttempt'];
type Rendered = components['schemas']['RenderedMessage'];

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The revision of the run's views: part of their ETags (see CONNECTION_VIEW). */
export const RUN_VIEW = 'run-1';

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

export function runView(r: RunRecord, attempts: AttemptRecord[] = []): Run {
  return {
    ...runSummaryView(r),
    created_by: r.createdBy,
    query_version: r.queryVersion,
    parameters: r.parameters,
    // The run's copy of its report's condition, checked when the report was saved.
    condition: r.condition as Condition | null,
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
    delivery_attempts: attempts.map(attemptView),
  };
}

export function renderedView(m: RenderedMessage): Rendered {
  return {
    subject: m.subject,
    body: m.body,
    table: m.table ? { columns: m.table.columns, rows: m.table.rows, total_rows: m.table.totalRows } : null,
    attachment: m.attachment ? { filename: m.attachment.filename, content_type: m.attachment.contentType } : null,
    link: m.link ? { url: m.link.url, expires_at: new Date(m.link.expiresAt).toISOString() } : null,
  };
}

export function attemptView(a: AttemptRecord): DeliveryAttempt {
  return {
    id: a.id, run_id: a.runId, delivery_id: a.deliveryId, channel_id: a.channelId, channel_name: a.channelName,
    channel_type: a.channelType, position: a.position, status: a.status, sends: a.sends,
    started_at: iso(a.startedAt), finished_at: iso(a.finishedAt), status_code: a.statusCode, peer_message_id: a.peerMessageId,
    detail: a.detail, error: a.error, preview: a.preview ? renderedView(a.preview) : null, next_retry_at: iso(a.nextRetryAt),
    history: a.history.map((h) => ({
      at: h.at.toISOString(), duration_ms: h.durationMs, status_code: h.statusCode, error: h.error, bytes_sent: h.bytesSent, response_excerpt: h.responseExcerpt,
    })),
  };
}
