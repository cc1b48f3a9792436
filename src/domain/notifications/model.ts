/**
 * In-app notifications: what a user is told (a report's run failed, a channel their reports use
 * is failing, for admins a system problem), kept per user in the store
 * (src/infra/db/stores/notifications-repo.ts). While one is unread, a repeat of its cause (the
 * same dedupe key) updates it (count, updated_at, the newest resource) instead of adding another.
 */
export const NOTIFICATION_KINDS = ['run.failed', 'run.partial', 'channel.failing', 'problem.opened', 'problem.resolved'] as const;
export type NotificationKind = typeof NOTIFICATION_KINDS[number];
export type NotificationSeverity = 'info' | 'warning' | 'critical';

/** What a notification is about, to open from it. */
export interface NotificationResource {
  type: 'run' | 'report' | 'channel' | 'problem' | 'api_key';
  id: string;
}

/** What a notification says, to whom. */
export interface NotificationContent {
  userId: string;
  kind: NotificationKind;
  severity: NotificationSeverity;
  title: string;
  body: string | null;
  resource: NotificationResource | null;
}

export interface NotificationRecord extends NotificationContent {
  id: string;
  count: number;
  readAt: Date | null;
  createdAt: Date;
  /** When its cause last happened. */
  updatedAt: Date;
}

/** A notification to give one user (a new one, or a repeat of an unread one's cause). */
export interface NotificationDraft extends NotificationContent {
  /** One unread notification per user and key: a repeat while it is unread bumps it. */
  dedupeKey: string;
  /** When its cause happened (the notification's updated_at). */
  at: Date;
  /**
   * Told already when the user has a notification of one of these keys, read or not, whose cause
   * is at or after `at` (events repeat: a finished run's run.updated comes again when a resend of
   * its deliveries ends, a failed run may settle to partial).
   */
  toldBy?: readonly string[];
}

/** A notification written from a draft: created, or an unread one bumped. */
export interface NotificationWritten {
  id: string;
  userId: string;
  kind: NotificationKind;
  /** A new notification (false: an unread one's count grew). */
  created: boolean;
}
