/**
 * The notifier on in-memory fakes: it starts at the latest event (history is never notified),
 * reads the outbox batch after batch from its cursor, writes each batch's notifications, their
 * notification.created events and the advanced cursor in one unit of work (a failure undoes all
 * three, and the next pass does the batch again), and tells of each event once.
 */
import { randomUUID } from 'node:crypto';
import { manualClock } from '../../src/core/clock.js';
import { createNotifier } from '../../src/domain/notifications/notifier.js';
import { problemChanged } from '../../src/domain/events/model.js';
import type { NotificationDraft } from '../../src/domain/notifications/model.js';
import type { NotificationFacts, NotificationsRepo, NotifierCursor } from '../../src/domain/notifications/ports.js';
import { FakeOutbox } from '../support/fakes/events.js';
import { fakeUnitOfWork } from '../support/fakes/unit-of-work.js';
import type { Transactional } from '../support/fakes/table.js';

class FakeNotifications implements Pick<NotificationsRepo, 'record' | 'unreadCount'>, Transactional {
  rows: Array<{ id: string; userId: string; dedupeKey: string; count: number; readAt: Date | null }> = [];
  failOn: string | undefined;

  async record(d: NotificationDraft) {
    if (d.dedupeKey === this.failOn) throw new Error('the store failed');
    const unread = this.rows.find((r) => r.userId === d.userId && r.dedupeKey === d.dedupeKey && !r.readAt);
    if (unread) unread.count += 1;
    else this.rows.push({ id: randomUUID(), userId: d.userId, dedupeKey: d.dedupeKey, count: 1, readAt: null });
    const row = unread ?? this.rows.at(-1)!;
    return { id: row.id, userId: row.userId, kind: d.kind, created: !unread };
  }
  async unreadCount(userId: string) { return this.rows.filter((r) => r.userId === userId && !r.readAt).length; }
  snapshot() {
    const copy = structuredClone(this.rows);
    return () => { this.rows = copy; };
  }
}

class FakeCursor implements NotifierCursor, Transactional {
  seq: number | undefined;
  async lock() { return this.seq; }
  async begin(seq: number) { this.seq ??= seq; return this.seq; }
  async advance(seq: number) { this.seq = seq; }
  snapshot() {
    const seq = this.seq;
    return () => { this.seq = seq; };
  }
}

const ADMIN = randomUUID();
const facts: NotificationFacts = {
  run: async () => undefined, channel: async () => undefined, apiKeyOwner: async () => undefined,
  users: async () => [], admins: async () => [{ id: ADMIN, role: 'admin', enabled: true }],
};

function world(batch = 2) {
  const outbox = new FakeOutbox();
  const notifications = new FakeNotifications();
  const cursor = new FakeCursor();
  const uow = fakeUnitOfWork({ outbox, notifications: notifications as unknown as NotificationsRepo, notificationFacts: facts, notifierCursor: cursor });
  const history = {
    since: async (seq: number, limit: number) => outbox.events.filter((e) => e.seq > seq).slice(0, limit),
    bounds: async () => ({ latest: outbox.events.at(-1)?.seq ?? 0, oldest: outbox.events[0]?.seq ?? null }),
  };
  const notifier = createNotifier({ uow, history, clock: manualClock(new Date('2026-04-01T00:00:00Z')), batch });
  const opened = (fingerprint: string) => outbox.add([problemChanged('opened', {
    id: randomUUID(), kind: 'storage.error', fingerprint, severity: 'critical', message: 'Storage fails', resource: null, openedAt: new Date('2026-04-01T00:00:00Z'),
  })]);
  return { outbox, notifications, cursor, uow, notifier, opened };
}

it('starts at the latest event, then tells of each later event once, batch after batch', async () => {
  const w = world(2);
  await w.opened('old');
  expect(await w.notifier.run()).toEqual({ events: 0, notified: 0 });
  expect(w.cursor.seq).toBe(1);
  for (const f of ['a', 'b', 'c', 'd', 'e']) await w.opened(f);
  // Batches of two until one is not full; its own notification.created events come behind and make nothing.
  expect(await w.notifier.run()).toEqual({ events: 10, notified: 5 });
  expect(w.notifications.rows.map((r) => r.dedupeKey)).toEqual(['a', 'b', 'c', 'd', 'e'].map((f) => `problem.opened:${f}`));
  // Each batch wrote its notification.created events, for the admin only, with the unread count then.
  const told = w.outbox.events.filter((e) => e.type === 'notification.created');
  expect(told.map((e) => [e.userId, e.data.unread_count])).toEqual([1, 2, 3, 4, 5].map((n) => [ADMIN, n]));
  // Nothing is told twice.
  expect(await w.notifier.run()).toEqual({ events: 0, notified: 0 });
  expect(w.cursor.seq).toBe(w.outbox.events.at(-1)!.seq);
  expect(w.notifications.rows).toHaveLength(5);
});

it('undoes a batch that fails, notifications, events and cursor together; the next pass does it again', async () => {
  const w = world(10);
  await w.notifier.run();
  await w.opened('x');
  await w.opened('y');
  w.notifications.failOn = 'problem.opened:y';
  await expect(w.notifier.run()).rejects.toThrow('the store failed');
  expect([w.notifications.rows.length, w.cursor.seq, w.outbox.types()]).toEqual([0, 0, ['problem.opened', 'problem.opened']]);
  expect(w.uow.rollbacks).toBe(1);
  w.notifications.failOn = undefined;
  expect(await w.notifier.run()).toEqual({ events: 2, notified: 2 });
  expect(w.notifications.rows.map((r) => [r.dedupeKey, r.count])).toEqual([['problem.opened:x', 1], ['problem.opened:y', 1]]);
});

it('stops after the batch that passes its time budget and carries on from the cursor next time', async () => {
  const w = world(2);
  await w.notifier.run();
  for (const f of ['a', 'b', 'c', 'd', 'e']) await w.opened(f);
  // No time at all: one batch, then it says there is more (a scheduler's tick goes on to its due reports).
  expect(await w.notifier.run(0)).toEqual({ events: 2, notified: 2, more: true });
  expect(w.notifications.rows).toHaveLength(2);
  expect(await w.notifier.run()).toEqual({ events: 8, notified: 3 });
  expect(w.notifications.rows.map((r) => r.dedupeKey)).toEqual(['a', 'b', 'c', 'd', 'e'].map((f) => `problem.opened:${f}`));
});
