/**
 * System problems and alerts: the kinds of problem Herald detects about itself, the alert
 * settings (who hears of them, how often, from which thresholds on) and the heartbeat's.
 */

export const PROBLEM_KINDS = [
  'scheduler.stalled', 'queue.backlog', 'queue.unavailable', 'runs.lost', 'channel.failing', 'report.failing',
  'storage.error', 'storage.nearly_full', 'retention.failing', 'gitops.failing', 'ai.failing', 'api_key.expiring',
] as const;
export type ProblemKind = typeof PROBLEM_KINDS[number];
export type ProblemSeverity = 'warning' | 'critical';

export interface Thresholds {
  schedulerGraceSeconds: number;
  queueBacklogSeconds: number;
  failureStreak: number;
  diskFreePercent: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { schedulerGraceSeconds: 180, queueBacklogSeconds: 600, failureStreak: 3, diskFreePercent: 10 };
export const DEFAULT_REPEAT_MINUTES = 240;
/** The days before an API key's expiry at which it is told of (a stage each). */
export const KEY_EXPIRY_STAGES = [14, 7, 1] as const;

export type HeartbeatMethod = 'GET' | 'HEAD' | 'POST';

export interface HeartbeatSettings {
  /** The URL is a secret (it often carries a token): here only whether it is stored. */
  hasUrl: boolean;
  method: HeartbeatMethod;
  intervalSeconds: number;
  graceSeconds: number | null;
  hasFailUrl: boolean;
}

export interface AlertSettings {
  channelIds: string[];
  fallbackChannelId: string | null;
  repeatMinutes: number;
  kinds: ProblemKind[];
  thresholds: Thresholds;
  heartbeat: HeartbeatSettings | null;
  version: number;
  /** Null until the settings are first saved. */
  updatedAt: Date | null;
}

/** The heartbeat's URLs, opened from the secret box (only where they are called). */
export interface HeartbeatTargets {
  url: string | null;
  failUrl: string | null;
}

/** What the evaluator found: a problem as its check sees it now. */
export interface DetectedProblem {
  kind: ProblemKind;
  /** The kind and the resource: one open problem per fingerprint. */
  fingerprint: string;
  severity: ProblemSeverity;
  /** Fit for every signed-in role (the dashboard's banner shows it): no secret, no admin-only detail. */
  message: string;
  resource: { type: string; id: string } | null;
  /** A change of stage (an API key's 14 → 7 → 1 days) alerts again at once. */
  stage?: string;
}

/** A problem as the store keeps it, from opening to resolution. */
export interface ProblemRecord {
  id: string;
  kind: ProblemKind;
  fingerprint: string;
  severity: ProblemSeverity;
  message: string;
  resource: { type: string; id: string } | null;
  stage: string | null;
  openedAt: Date;
  lastSeenAt: Date;
  resolvedAt: Date | null;
  lastAlertAt: Date | null;
  alerts: number;
}

export type AlertEvent = 'opened' | 'repeated' | 'resolved' | 'test';

export interface AlertSendRecord {
  id: string;
  problemId: string | null;
  event: AlertEvent;
  channelId: string | null;
  fallback: boolean;
  status: 'sent' | 'failed';
  error: string | null;
  createdAt: Date;
}

export interface HeartbeatStatus {
  state: 'off' | 'calling' | 'stopped';
  lastSuccessAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  nextCallAt: Date | null;
  /** The fail URL was called for the current unhealthy spell (it is called once per spell). */
  failCalled?: boolean;
}

export interface AlertStatus {
  openProblems: ProblemRecord[];
  lastAlert: { problemId: string; kind: ProblemKind; event: 'opened' | 'repeated' | 'resolved'; at: Date } | null;
  channels: Array<{ channelId: string; lastSentAt: Date | null; lastError: string | null; lastErrorAt: Date | null }>;
  heartbeat: HeartbeatStatus;
}
