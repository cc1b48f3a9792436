/**
 * The change events of reports, runs and channels: data holds only ids and what changed. They
 * travel on the event bus (Redis pub/sub) from whichever process made the change to every API
 * process, whose GET /events streams the public kinds. `run.cancel` is internal: it tells the
 * worker holding a run to stop it. This module knows no feature, so every feature may publish
 * through it; a builder that reads a feature's record lives with that feature (runs/events.ts).
 */
export type PublicEventKind = 'run.updated' | 'report.updated' | 'channel.health';
export const PUBLIC_EVENT_KINDS: ReadonlySet<string> = new Set<PublicEventKind>(['run.updated', 'report.updated', 'channel.health']);

export interface ChangeEvent {
  type: PublicEventKind | 'run.cancel';
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
