/**
 * In-app notifications in the store (the notifications domain's NotificationsRepo) and the
 * notifier's cursor (NotifierCursor, a row of ops_status). The partial unique index on (user_id,
 * dedupe_key) where read_at is null decides whether a draft is a new notification or a repeat of
 * an unread one's cause.
 */
import { and, desc, eq, isNotNull, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { notifications, opsStatus } from '../schema.js';
import type { Tx } from '../client.js';
import { decodeTimeCursor, toPage, type PageRequest } from '../../../core/cursor.js';
import { newId } from '../../../core/ids.js';
import type { NotificationsRepo, NotifierCursor } from '../../../domain/notifications/ports.js';
import type { NotificationKind, NotificationRecord, NotificationResource } from '../../../domain/notifications/model.js';

type Row = typeof notifications.$inferSelect;

const recordOf = (r: Row): NotificationRecord => ({
  id: r.id, userId: r.userId, kind: r.kind as NotificationKind, severity: r.severity, title: r.title, body: r.body,
  resource: r.resourceType && r.resourceId ? { type: r.resourceType as NotificationResource['type'], id: r.resourceId } : null,
  count: r.count, readAt: r.readAt, createdAt: r.createdAt, updatedAt: r.updatedAt,
});

const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;

export function createNotificationsRepo(db: Tx): NotificationsRepo {
  const mine = (userId: string, id: string) => and(eq(notifications.userId, userId), eq(notifications.id, id));
  return {
    async list(userId, filter, q: PageRequest) {
      const where: SQL[] = [eq(notifications.userId, userId)];
      if (filter.unread === true) where.push(isNull(notifications.readAt));
      if (filter.unread === false) where.push(isNotNull(notifications.readAt));
      if (q.cursor) {
        const { at, id } = decodeTimeCursor(q.cursor);
        where.push(sql`(${notifications.updatedAt}, ${notifications.id}) < (${at}::timestamptz, ${id}::uuid)`);
      }
      const rows = await db.select().from(notifications).where(and(...where))
        .orderBy(desc(notifications.updatedAt), desc(notifications.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.updatedAt.toISOString(), r.id], recordOf);
    },

    async unreadCount(userId) {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(notifications)
        .where(and(eq(notifications.userId, userId), isNull(notifications.readAt)));
      return row?.n ?? 0;
    },

    async record(d, now) {
      const told = d.toldBy && d.toldBy.length > 0
        ? sql`where not exists (select 1 from notifications n where n.user_id = ${d.userId}::uuid
            and n.dedupe_key in (${sql.join(d.toldBy.map((k) => sql`${k}`), sql`, `)}) and n.updated_at >= ${iso(d.at)})`
        : sql``;
      const rows = await db.execute(sql`
        insert into notifications (id, user_id, kind, severity, title, body, resource_type, resource_id, dedupe_key, count, created_at, updated_at)
        select ${newId()}::uuid, ${d.userId}::uuid, ${d.kind}, ${d.severity}, ${d.title}, ${d.body}, ${d.resource?.type ?? null},
          ${d.resource?.id ?? null}::uuid, ${d.dedupeKey}, 1, ${iso(now)}, ${iso(d.at)}
        ${told}
        on conflict (user_id, dedupe_key) where read_at is null do update set
          count = notifications.count + 1, severity = excluded.severity, title = excluded.title, body = excluded.body,
          resource_type = excluded.resource_type, resource_id = excluded.resource_id,
          updated_at = greatest(notifications.updated_at, excluded.updated_at)
        returning id, user_id, kind, (xmax = 0) as created`) as unknown as Array<{ id: string; user_id: string; kind: string; created: boolean }>;
      const [row] = rows;
      return row ? { id: row.id, userId: row.user_id, kind: row.kind as NotificationKind, created: row.created } : undefined;
    },

    async markRead(userId, id, now) {
      await db.update(notifications).set({ readAt: now }).where(and(mine(userId, id), isNull(notifications.readAt)));
      const [row] = await db.select().from(notifications).where(mine(userId, id));
      return row ? recordOf(row) : undefined;
    },

    async markAllRead(userId, before, now) {
      const where = [eq(notifications.userId, userId), isNull(notifications.readAt), ...(before ? [lt(notifications.updatedAt, before)] : [])];
      const marked = await db.update(notifications).set({ readAt: now }).where(and(...where)).returning({ id: notifications.id });
      return marked.length;
    },
  };
}

const CURSOR_KEY = 'notifications.cursor';

export function createNotifierCursor(db: Tx): NotifierCursor {
  const lock = async () => {
    const [row] = await db.select({ value: opsStatus.value }).from(opsStatus).where(eq(opsStatus.key, CURSOR_KEY)).for('update');
    const seq = row?.value.seq;
    return typeof seq === 'number' ? seq : undefined;
  };
  return {
    lock,
    async begin(seq, now) {
      // A row without a seq (written by hand) is started over too.
      await db.insert(opsStatus).values({ key: CURSOR_KEY, value: { seq }, updatedAt: now }).onConflictDoUpdate({
        target: opsStatus.key, set: { value: { seq }, updatedAt: now },
        setWhere: sql`jsonb_typeof(${opsStatus.value} -> 'seq') is distinct from 'number'`,
      });
      return (await lock()) ?? seq;
    },
    async advance(seq, now) {
      await db.update(opsStatus).set({ value: { seq }, updatedAt: now }).where(eq(opsStatus.key, CURSOR_KEY));
    },
  };
}
