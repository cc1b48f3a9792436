/**
 * The operations tick, one process of the fleet at a time (a lease on the store): judges the
 * system problems on a fresh snapshot (problems.ts), opens what is new, alerts again what lasts
 * past repeat_minutes (or moved to a later stage), resolves what no longer holds, each change
 * committed with its event (problem.opened / problem.resolved, which the notifications feature
 * turns into admins' notifications); then sends the alerts (after the commit: nothing slow in a
 * transaction), and beats the heartbeat. Problems are recorded whatever the alert settings say;
 * only the kinds they list alert.
 */
import type { Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { notFound } from '../../core/errors.js';
import type { Log } from '../../core/log.js';
import { problemChanged } from '../events/model.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import type { AlertSender, AlertTargetResult } from './alert-sender.js';
import type { AlertSettings, AlertStatus, DetectedProblem, HeartbeatTargets, ProblemRecord } from './model.js';
import type { Heartbeat } from './heartbeat.js';
import type { Leases, OpsStatusRepo, ProblemsRepo, ProblemSnapshotSource } from './ports.js';
import { detectProblems } from './problems.js';

export const OPERATIONS_LEASE = 'operations';
/** The lease outlives a few ticks, so a holder that dies is replaced within a minute. */
const LEASE_MS = 60_000;

export interface OperationsDeps {
  uow: UnitOfWork;
  problems: ProblemsRepo;
  status: OpsStatusRepo;
  leases: Leases;
  snapshot: ProblemSnapshotSource;
  settings(): Promise<{ settings: AlertSettings; targets: HeartbeatTargets }>;
  sender: AlertSender;
  heartbeat: Heartbeat;
  clock: Clock;
  log: Log;
  /** Who holds the lease (one per process). */
  holder: string;
  startedAt: Date;
}

export interface AlertTestTarget {
  target: 'channel' | 'fallback' | 'heartbeat';
  channelId?: string;
  ok: boolean;
  status?: number;
  error: { code: string; message: string } | null;
  elapsedMs: number;
}

const toEvent = (p: ProblemRecord) => ({ ...p, resource: p.resource });

export function createOperationsService(deps: OperationsDeps) {
  const { problems } = deps;

  async function reconcile(now: Date, detected: DetectedProblem[], settings: AlertSettings) {
    const open = await problems.open();
    const byFingerprint = new Map(open.map((p) => [p.fingerprint, p]));
    const seen = new Set<string>();
    const alerts: Array<{ problem: ProblemRecord; event: 'opened' | 'repeated' | 'resolved' }> = [];
    const repeatMs = settings.repeatMinutes * 60_000;
    for (const d of detected) {
      seen.add(d.fingerprint);
      const existing = byFingerprint.get(d.fingerprint);
      if (!existing) {
        const made = await deps.uow.run(async (tx) => {
          const p = await problems.insert({ ...d, id: newId() }, now);
          if (p) await tx.outbox.add([problemChanged('opened', toEvent(p))]);
          return p;
        });
        if (made) {
          deps.log.warn('system problem opened', { problem: made.fingerprint, kind: made.kind });
          alerts.push({ problem: made, event: 'opened' });
        }
        continue;
      }
      const stage = d.stage ?? null;
      await problems.touch(existing.id, { message: d.message, severity: d.severity, stage }, now);
      const current = { ...existing, message: d.message, severity: d.severity, stage };
      const lastAlert = existing.lastAlertAt ?? existing.openedAt;
      if (stage !== existing.stage || now.getTime() - lastAlert.getTime() >= repeatMs) alerts.push({ problem: current, event: 'repeated' });
    }
    for (const p of open) {
      if (seen.has(p.fingerprint)) continue;
      const resolved = await deps.uow.run(async (tx) => {
        const r = await problems.resolve(p.id, now);
        if (r) await tx.outbox.add([problemChanged('resolved', toEvent(r))]);
        return r;
      });
      if (resolved) {
        deps.log.info('system problem resolved', { problem: resolved.fingerprint, kind: resolved.kind });
        // A problem that never alerted (its kind is not alerted) has no resolved message either.
        if (resolved.alerts > 0 || resolved.lastAlertAt) alerts.push({ problem: resolved, event: 'resolved' });
      }
    }
    return alerts;
  }

  return {
    /**
     * One tick; answers false when another process holds the lease. `readiness` is this
     * process's (every component ok), with the first unhealthy one's reason.
     */
    async tick(now: Date, readiness: () => Promise<{ healthy: boolean; reason: string | null }>): Promise<boolean> {
      if (!(await deps.leases.acquire(OPERATIONS_LEASE, deps.holder, LEASE_MS))) return false;
      const { settings, targets } = await deps.settings();
      try {
        const snapshot = await deps.snapshot.read(now, settings.thresholds);
        snapshot.evaluatingSince = deps.startedAt;
        const alerts = await reconcile(now, detectProblems(snapshot, settings.thresholds), settings);
        const alerting = settings.channelIds.length > 0 || settings.fallbackChannelId !== null;
        for (const { problem, event } of alerts) {
          if (!alerting || !settings.kinds.includes(problem.kind)) continue;
          // Marked first: a send that outlasts the lease is not repeated by the next holder at once.
          if (event !== 'resolved') await problems.alerted(problem.id, now);
          await deps.sender.send(problem, event, settings);
        }
      } finally {
        // The heartbeat beats even when a check failed: it reports readiness, not the checks.
        await deps.heartbeat.tick(now, settings, targets, await readiness());
      }
      return true;
    },

    /** GET /system/problems: open and resolved, newest first. */
    listProblems: (q: Parameters<ProblemsRepo['list']>[0]) => problems.list(q),

    /** GET /system/problems/{id}: the problem and the alerts sent about it. */
    async getProblem(id: string) {
      const problem = await problems.find(id);
      if (!problem) throw notFound('problem');
      return { problem, alerts: await problems.sendsOf(id) };
    },

    /** The status shown with the settings. */
    async status(): Promise<AlertStatus> {
      const [openProblems, sends, heartbeat] = await Promise.all([problems.open(), problems.sendStatus(), deps.status.heartbeat()]);
      return {
        openProblems,
        lastAlert: sends.lastAlert ? { ...sends.lastAlert, kind: sends.lastAlert.kind as ProblemRecord['kind'] } : null,
        channels: sends.channels,
        heartbeat: heartbeat ?? { state: 'off', lastSuccessAt: null, lastError: null, lastErrorAt: null, nextCallAt: null },
      };
    },

    /**
     * POST /settings/alerts/test: a test alert through each alert channel and the fallback (each
     * on its own, whatever the others did), and one call of the heartbeat URL.
     */
    async test(): Promise<AlertTestTarget[]> {
      const { settings, targets } = await deps.settings();
      const now = deps.clock.now();
      const probe: ProblemRecord = {
        id: newId(), kind: 'scheduler.stalled', fingerprint: 'test', severity: 'warning', message: 'Test alert: alerts reach this channel',
        resource: null, stage: null, openedAt: now, lastSeenAt: now, resolvedAt: null, lastAlertAt: null, alerts: 0,
      };
      const out: AlertTestTarget[] = [];
      const one = async (channelId: string, fallback: boolean) => {
        const [r] = await deps.sender.send(probe, 'test', { channelIds: [channelId], fallbackChannelId: null }) as [AlertTargetResult];
        out.push({ target: fallback ? 'fallback' : 'channel', channelId, ok: r.ok, error: r.error, elapsedMs: r.elapsedMs });
      };
      for (const id of settings.channelIds) await one(id, false);
      if (settings.fallbackChannelId) await one(settings.fallbackChannelId, true);
      if (settings.heartbeat && targets.url) {
        const r = await deps.heartbeat.call(targets.url, settings.heartbeat.method);
        out.push({ target: 'heartbeat', ok: r.ok, ...(r.status !== null ? { status: r.status } : {}), error: r.error, elapsedMs: r.elapsedMs });
      }
      return out;
    },
  };
}

export type OperationsService = ReturnType<typeof createOperationsService>;
