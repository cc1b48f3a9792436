/** The alert settings, their status and test results as the contract shows them. */
import type { components } from '../generated/openapi.js';
import type { AlertSettings, AlertStatus, ProblemRecord } from '../domain/alerts/model.js';
import type { AlertTestTarget } from '../domain/alerts/operations-service.js';

type Schemas = components['schemas'];
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

export const problemView = (p: ProblemRecord): Schemas['SystemProblem'] => ({
  id: p.id, kind: p.kind, fingerprint: p.fingerprint, severity: p.severity, message: p.message, resource: p.resource,
  opened_at: p.openedAt.toISOString(), resolved_at: isoOrNull(p.resolvedAt), last_alert_at: isoOrNull(p.lastAlertAt), alerts: p.alerts,
});

export function alertSettingsView(s: AlertSettings, status: AlertStatus): Schemas['AlertSettings'] {
  const hb = s.heartbeat;
  return {
    channel_ids: s.channelIds,
    fallback_channel_id: s.fallbackChannelId,
    repeat_minutes: s.repeatMinutes,
    kinds: s.kinds,
    thresholds: {
      scheduler_grace_seconds: s.thresholds.schedulerGraceSeconds, queue_backlog_seconds: s.thresholds.queueBacklogSeconds,
      failure_streak: s.thresholds.failureStreak, disk_free_percent: s.thresholds.diskFreePercent,
    },
    heartbeat: hb ? {
      url: { configured: true }, method: hb.method, interval_seconds: hb.intervalSeconds, grace_seconds: hb.graceSeconds,
      fail_url: hb.hasFailUrl ? { configured: true } : null,
    } : null,
    status: {
      open_problems: status.openProblems.map(problemView),
      last_alert: status.lastAlert ? { problem_id: status.lastAlert.problemId, kind: status.lastAlert.kind, event: status.lastAlert.event, at: status.lastAlert.at.toISOString() } : null,
      channels: status.channels.map((c) => ({
        channel_id: c.channelId, last_sent_at: isoOrNull(c.lastSentAt), last_error: c.lastError, last_error_at: isoOrNull(c.lastErrorAt),
      })),
      heartbeat: {
        state: status.heartbeat.state, last_success_at: isoOrNull(status.heartbeat.lastSuccessAt), last_error: status.heartbeat.lastError,
        last_error_at: isoOrNull(status.heartbeat.lastErrorAt), next_call_at: isoOrNull(status.heartbeat.nextCallAt),
      },
    },
    version: s.version,
    updated_at: s.updatedAt?.toISOString() ?? null,
  };
}

export const alertTestView = (targets: AlertTestTarget[]): Schemas['AlertTestResult'] => ({
  targets: targets.map((t) => ({
    target: t.target, ...(t.channelId ? { channel_id: t.channelId } : {}), ok: t.ok,
    ...(t.status !== undefined ? { status: t.status } : {}), ...(t.error ? { error: t.error } : {}), elapsed_ms: t.elapsedMs,
  })),
});
