/**
 * The checks: pure functions from what Herald knows now (a snapshot) to the problems that hold
 * now, each with a stable fingerprint (its kind and its resource). The evaluator
 * (problems-service.ts) opens what is new, repeats what lasts, and resolves what no longer holds.
 * Messages are fit for every signed-in role: no secret, no address, no admin-only detail.
 */
import { KEY_EXPIRY_STAGES, type DetectedProblem, type Thresholds } from './model.js';
import type { ProblemSnapshot } from './ports.js';

const ago = (now: Date, then: Date): number => Math.max(0, Math.round((now.getTime() - then.getTime()) / 1000));

export function humanSeconds(s: number): string {
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 360) / 10} h`;
  return `${Math.round(s / 8640) / 10} days`;
}

export function detectProblems(s: ProblemSnapshot, t: Thresholds): DetectedProblem[] {
  const found: DetectedProblem[] = [];
  const now = s.now;

  const lastTick = s.lastSchedulerTickAt ?? s.evaluatingSince;
  if (ago(now, lastTick) > t.schedulerGraceSeconds) {
    found.push({
      kind: 'scheduler.stalled', fingerprint: 'scheduler.stalled', severity: 'critical', resource: null,
      message: s.lastSchedulerTickAt
        ? `No scheduler has completed a tick for ${humanSeconds(ago(now, lastTick))}: scheduled reports are not being queued`
        : `No scheduler has completed a tick since ${humanSeconds(ago(now, lastTick))} ago: scheduled reports are not being queued`,
    });
  }
  if (!s.queue.redisAnswers) {
    found.push({
      kind: 'queue.unavailable', fingerprint: 'queue.unavailable', severity: 'critical', resource: null,
      message: 'Redis does not answer: runs cannot be queued or taken by workers, and live events stop',
    });
  }
  if (s.queue.oldestPendingAt && ago(now, s.queue.oldestPendingAt) > t.queueBacklogSeconds) {
    found.push({
      kind: 'queue.backlog', fingerprint: 'queue.backlog', severity: 'warning', resource: null,
      message: `${s.queue.pending} run(s) waiting for a worker; the oldest for ${humanSeconds(ago(now, s.queue.oldestPendingAt))}`,
    });
  }
  if (s.lostRuns.count > 0) {
    found.push({
      kind: 'runs.lost', fingerprint: 'runs.lost', severity: 'critical', resource: null,
      message: `${s.lostRuns.count} run(s) in the last hour ended failed because their workers stopped (crashed or were killed)`,
    });
  }
  for (const c of s.failingChannels) {
    found.push({
      kind: 'channel.failing', fingerprint: `channel.failing:${c.id}`, severity: 'warning', resource: { type: 'channel', id: c.id },
      message: `The channel "${c.name}" is failing: its latest delivery could not be sent`,
    });
  }
  for (const r of s.failingReports) {
    found.push({
      kind: 'report.failing', fingerprint: `report.failing:${r.id}`, severity: 'warning', resource: { type: 'report', id: r.id },
      message: `The report "${r.title}" failed ${r.streak} times in a row${r.lastError ? ` (${r.lastError})` : ''}`,
    });
  }
  if (!s.storage.writable) {
    found.push({
      kind: 'storage.error', fingerprint: 'storage.error', severity: 'critical', resource: null,
      message: 'Result files cannot be written to the storage',
    });
  } else if (s.storage.freePercent !== null && s.storage.freePercent < t.diskFreePercent) {
    found.push({
      kind: 'storage.nearly_full', fingerprint: 'storage.nearly_full', severity: s.storage.freePercent < t.diskFreePercent / 2 ? 'critical' : 'warning',
      resource: null, message: `The data volume is nearly full: ${s.storage.freePercent.toFixed(1)} % free`,
    });
  }
  if (s.retention.failing) {
    found.push({
      kind: 'retention.failing', fingerprint: 'retention.failing', severity: 'warning', resource: null,
      message: 'Result files past their retention could not be removed: storage keeps growing',
    });
  }
  if (s.gitops?.failing) {
    found.push({
      kind: 'gitops.failing', fingerprint: 'gitops.failing', severity: 'warning', resource: null,
      message: 'The configuration directory could not be applied (GET /api/v1/gitops/status says why)',
    });
  }
  if (s.ai?.failing) {
    found.push({ kind: 'ai.failing', fingerprint: 'ai.failing', severity: 'warning', resource: null, message: 'The AI assistant\'s provider fails' });
  }
  for (const k of s.expiringKeys) {
    const days = (k.expiresAt.getTime() - now.getTime()) / 86_400_000;
    if (days <= 0) continue;
    // The stage: the smallest of 14, 7, 1 days it is within; each stage alerts again.
    const stage = [...KEY_EXPIRY_STAGES].reverse().find((d) => days <= d);
    if (stage === undefined) continue;
    found.push({
      kind: 'api_key.expiring', fingerprint: `api_key.expiring:${k.id}`, severity: stage === 1 ? 'critical' : 'warning',
      resource: { type: 'api_key', id: k.id }, stage: String(stage),
      message: `The API key "${k.name}" expires in ${days < 1 ? `${Math.max(1, Math.round(days * 24))} h` : `${Math.floor(days)} day(s)`} (${k.expiresAt.toISOString()})`,
    });
  }
  return found;
}
