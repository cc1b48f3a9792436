/**
 * The notifier: turns the features' events into notifications, each event exactly once. It reads
 * the outbox (the events in seq order) from its cursor, and in one unit of work per batch writes
 * the notifications, their notification.created events (through the outbox, so they are numbered
 * and relayed like every event, on their user's streams only) and the advanced cursor. The
 * cursor's row stays locked until that commit, so a second notifier (another process's scheduler)
 * waits, then carries on from where the first stopped. Without a cursor it starts at the latest
 * event: history is never notified. A scheduler task (src/main/scheduler-tasks.ts), also run
 * directly (tests).
 */
import type { Clock } from '../../core/clock.js';
import { notificationCreated, type ChangeEvent } from '../events/model.js';
import type { EventHistory } from '../events/ports.js';
import type { Outbox } from '../events/ports.js';
import type { NotificationFacts, NotificationsRepo, NotifierCursor } from './ports.js';
import { notificationsFor } from './rules.js';

/** Events read per unit of work (most events notify no one: a minute of scheduled runs writes thousands). */
const BATCH = 1000;

/** The admins, read once for a batch (every problem event asks for them). */
function withAdminsOnce(facts: NotificationFacts): NotificationFacts {
  let admins: ReturnType<NotificationFacts['admins']> | undefined;
  return {
    run: (id) => facts.run(id), channel: (id) => facts.channel(id), apiKeyOwner: (id) => facts.apiKeyOwner(id), users: (ids) => facts.users(ids),
    admins: () => (admins ??= facts.admins()),
  };
}

export interface NotifierTx {
  notifications: Pick<NotificationsRepo, 'record' | 'unreadCount'>;
  notificationFacts: NotificationFacts;
  notifierCursor: NotifierCursor;
  outbox: Outbox;
}

export interface NotifierResult {
  /** Events read. */
  events: number;
  /** Notifications created or bumped. */
  notified: number;
}

export function createNotifier(deps: {
  uow: { run<T>(work: (tx: NotifierTx) => Promise<T>): Promise<T> };
  history: Pick<EventHistory, 'since' | 'bounds'>;
  clock: Clock;
  batch?: number;
}) {
  const size = deps.batch ?? BATCH;

  /** One batch in one unit of work; `more` when it was full (another may follow at once). */
  const batch = (): Promise<NotifierResult & { more: boolean }> => deps.uow.run(async (tx) => {
    const now = deps.clock.now();
    const from = await tx.notifierCursor.lock();
    if (from === undefined) {
      await tx.notifierCursor.begin((await deps.history.bounds()).latest, now);
      return { events: 0, notified: 0, more: false };
    }
    const events = await deps.history.since(from, size);
    if (events.length === 0) return { events: 0, notified: 0, more: false };
    const told: ChangeEvent[] = [];
    const facts = withAdminsOnce(tx.notificationFacts);
    // Each user's unread count, read once per batch, then kept: a new notification adds one, a bump none.
    const unread = new Map<string, number>();
    for (const event of events) {
      for (const draft of await notificationsFor(event, facts, now)) {
        const written = await tx.notifications.record(draft, now);
        if (!written) continue;
        const known = unread.get(written.userId);
        const count = known === undefined ? await tx.notifications.unreadCount(written.userId) : known + (written.created ? 1 : 0);
        unread.set(written.userId, count);
        told.push(notificationCreated(written.userId, written, count));
      }
    }
    await tx.outbox.add(told);
    await tx.notifierCursor.advance(events[events.length - 1]!.seq, now);
    return { events: events.length, notified: told.length, more: events.length === size };
  });

  return {
    /**
     * Notifies of every event after the cursor, batch after batch; answers the totals. With a
     * budget, stops after the batch that passes it (the scheduler's tick goes on to its next due
     * reports; the next tick carries on from the cursor).
     */
    async run(budgetMs = Infinity): Promise<NotifierResult & { more?: true }> {
      const total: NotifierResult = { events: 0, notified: 0 };
      const until = performance.now() + budgetMs;
      for (;;) {
        const done = await batch();
        total.events += done.events;
        total.notified += done.notified;
        if (!done.more) return total;
        if (performance.now() >= until) return { ...total, more: true };
      }
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
