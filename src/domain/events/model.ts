/**
 * The change events of reports, runs and channels: data holds only ids and what changed. They
 * travel on the event bus (Redis pub/sub) from whichever process made the change to every API
 * process, whose GET /events streams the public kinds. `run.cancel` is internal: it tells the
 * worker holding a run to stop it. This module knows no feature, so every feature may publish
 * through it; a builder that reads a feature's record lives with that feature (runs/events.ts).
 */
export type PublicEventKind = 'run.updated' | 'report.updated' | 'channel.health' | 'notification.created';
export const PUBLIC_EVENT_KINDS: ReadonlySet<string> = new Set<PublicEventKind>(['run.updated', 'report.updated', 'channel.health', 'notification.created']);

/**
 * Internal kinds: `run.cancel` tells the worker holding a run to stop it; `problem.opened` and
 * `problem.resolved` tell of a system problem (the notifications feature turns them into admins'
 * notifications); `identity.changed` tells every API process that what a user may do changed (a
 * key revoked, a session ended, the user disabled or given another role), so that it drops the
 * principals it holds for them (data: { user_id }, written by the identity repositories of a unit
 * of work, src/infra/db/unit-of-work.ts). Streams never carry them.
 */
export type InternalEventKind = 'run.cancel' | 'problem.opened' | 'problem.resolved' | 'identity.changed';

export interface ChangeEvent {
  type: PublicEventKind | InternalEventKind;
  data: Record<string, unknown>;
  /**
   * The one user whose event streams may carry it (a change only they may read); unset, every
   * reader's streams carry it (every signed-in role may read runs, reports and channels).
   */
  userId?: string;
}

export type ReportChange = 'created' | 'updated' | 'paused' | 'resumed' | 'deleted' | 'scheduled' | 'ran';

export function reportUpdated(reportId: string, change: ReportChange, extra: {
  nextRunAt?: Date | null; lastRun?: { id: string; status: string };
} = {}): ChangeEvent {
  return {
    type: 'report.updated',
    data: {
      id: reportId, change,
      ...(extra.nextRunAt !== undefined ? { next_run_at: extra.nextRunAt?.toISOString() ?? null } : {}),
      ...(extra.lastRun ? { last_run: extra.lastRun } : {}),
    },
  };
}

/** A channel's health changed (from its latest delivery attempt). */
export const channelHealthChanged = (channelId: string, health: string, previous: string): ChangeEvent =>
  ({ type: 'channel.health', data: { id: channelId, health, previous } });

export const runCancelRequested = (runId: string, reportId: string): ChangeEvent => ({ type: 'run.cancel', data: { id: runId, report_id: reportId } });

/** A system problem opened or resolved (alerts/problems.ts); data: the problem's id, kind, fingerprint, severity, message, resource. */
export const problemChanged = (change: 'opened' | 'resolved', problem: {
  id: string; kind: string; fingerprint: string; severity: 'warning' | 'critical'; message: string;
  resource: { type: string; id: string } | null; openedAt: Date; resolvedAt?: Date | null;
}): ChangeEvent => ({
  type: change === 'opened' ? 'problem.opened' : 'problem.resolved',
  data: {
    id: problem.id, kind: problem.kind, fingerprint: problem.fingerprint, severity: problem.severity, message: problem.message,
    resource: problem.resource, opened_at: problem.openedAt.toISOString(),
    ...(problem.resolvedAt ? { resolved_at: problem.resolvedAt.toISOString() } : {}),
  },
});

/** A notification of one user was created or its count grew: only that user's streams carry it. */
export const notificationCreated = (userId: string, notification: { id: string; kind: string }, unreadCount: number): ChangeEvent =>
  ({ type: 'notification.created', userId, data: { id: notification.id, kind: notification.kind, unread_count: unreadCount } });
