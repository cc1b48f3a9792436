/** The ports of in-app notifications: the store of them, the facts the rules read, the notifier's cursor. */
import type { Page, PageRequest } from '../../core/cursor.js';
import type { Role } from '../identity/principal.js';
import type { NotificationDraft, NotificationRecord, NotificationWritten } from './model.js';

export interface NotificationsRepo {
  /** The user's notifications, newest first (updated_at, then id); `unread` filters both ways. */
  list(userId: string, filter: { unread?: boolean | undefined }, page: PageRequest): Promise<Page<NotificationRecord>>;
  unreadCount(userId: string): Promise<number>;
  /**
   * Writes the draft: a new notification, or (an unread one of its user and dedupe key exists)
   * that one with count + 1 and the draft's title, body, severity, resource and time. Answers
   * undefined when the draft was told already (its `toldBy`).
   */
  record(draft: NotificationDraft, now: Date): Promise<NotificationWritten | undefined>;
  /** Sets read_at on the user's unread notification; answers it (undefined when it is not the user's). */
  markRead(userId: string, id: string, now: Date): Promise<NotificationRecord | undefined>;
  /** Marks the user's unread notifications read (those whose cause happened before `before`, when given); answers how many. */
  markAllRead(userId: string, before: Date | undefined, now: Date): Promise<number>;
}

/** A user the rules may notify. */
export interface Recipient {
  id: string;
  role: Role;
  enabled: boolean;
}

/** What the rules read to decide who is told what. */
export interface NotificationFacts {
  /** A run with its report (undefined when either is gone). */
  run(id: string): Promise<{
    id: string; reportId: string; reportTitle: string; ownerId: string | null; createdBy: string | null;
    finishedAt: Date | null; error: { code: string; message: string } | null;
  } | undefined>;
  /** A channel, and the owners of the reports whose deliveries use it. */
  channel(id: string): Promise<{ id: string; name: string; lastError: { code: string; message: string } | null; reportOwnerIds: string[] } | undefined>;
  /** The owner of an API key (undefined when the key is gone). */
  apiKeyOwner(keyId: string): Promise<string | undefined>;
  /** These users (unknown ids left out). */
  users(ids: readonly string[]): Promise<Recipient[]>;
  /** Every admin, enabled or not. */
  admins(): Promise<Recipient[]>;
}

/** Where the notifier has read the outbox up to (ops_status 'notifications.cursor'). */
export interface NotifierCursor {
  /**
   * The seq read up to, with the cursor's row locked until the unit of work ends (a second
   * notifier waits, then reads the advanced cursor); undefined when there is none yet.
   */
  lock(): Promise<number | undefined>;
  /** Starts the cursor at `seq` unless one exists (two starting at once: the first stays); answers the cursor, locked. */
  begin(seq: number, now: Date): Promise<number>;
  advance(seq: number, now: Date): Promise<void>;
}
