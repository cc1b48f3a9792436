/**
 * The change events of reports and runs: data holds only ids and what
 * changed. They travel on the event bus (Redis pub/sub) from whichever process made the change
 * to every API process, whose GET /events streams the public kinds. `run.cancel` is internal:
 * it tells the worker holding a run to stop it.
 */
import type { RunRecord } from '../runs/model.js';

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

/** Where services publish changes: the outbox, in order (see `publishQuietly`). */
export interface EventSink {
  publish(events: readonly ChangeEvent[]): Promise<void>;
}

export type ReportChange = 'created' | 'updated' | 'paused' | 'resumed' | 'deleted' | 'scheduled' | 'ran';

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

/**
 * A run changed: its run.updated and its report's report.updated (the report's last run is this
 * one, with this status). The one builder of the pair every run change sends.
 */
export function runChanged(run: Pick<RunRecord, 'id' | 'reportId' | 'status' | 'trigger' | 'finishedAt' | 'error'>): ChangeEvent[] {
  return [runUpdated(run), reportUpdated(run.reportId, 'ran', { lastRun: { id: run.id, status: run.status } })];
}

/** A channel's health changed (from its latest delivery attempt). */
export const channelHealthChanged = (channelId: string, health: string, previous: string): ChangeEvent =>
  ({ type: 'channel.health', data: { id: channelId, health, previous } });

export const runCancelRequested = (runId: string, reportId: string): ChangeEvent => ({ type: 'run.cancel', data: { id: runId, report_id: reportId } });

/**
 * Writes events right after the change committed, for services not yet on the unit of work
 * (which writes them in the change's own transaction): all in one outbox statement, so they keep
 * their order. A failure (the store away) is logged, never undoes or fails the change.
 */
export async function publishQuietly(sink: EventSink, events: ChangeEvent[], onError: (err: unknown) => void): Promise<void> {
  if (events.length === 0) return;
  try {
    await sink.publish(events);
  } catch (err) {
    onError(err);
  }
}
