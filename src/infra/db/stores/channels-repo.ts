/**
 * Channels, deliveries and delivery attempts in the store (the channels domain's ChannelsRepo,
 * DeliveriesRepo and AttemptsRepo). The database decides the races: names unique, a channel in
 * use cannot go (foreign key), positions move under the report's row lock in the caller's unit of work,
 * an attempt is unique per (run, delivery), and health follows the latest attempt in one update.
 */
import { and, asc, desc, eq, gt, gte, isNotNull, sql } from 'drizzle-orm';
import { channels, deliveries, deliveryAttempts, reports } from '../schema.js';
import { inSavepoint, pgConstraint, pgErrorCode, type Tx } from '../client.js';
import { ATTEMPT_WRITES, attemptLeaves, statusIn } from './status-writes.js';
import { updateVersioned } from '../versioned.js';
import { DomainError, notFound, versionConflict } from '../../../core/errors.js';
import { decodeStringCursor, toPage, type Page, type PageRequest } from '../../../core/cursor.js';
import type { AttemptEnd, AttemptsRepo, ChannelsRepo, DeliveriesRepo } from '../../../domain/channels/ports.js';
import type { AttemptSend } from '../../../domain/channels/model.js';

type ChannelColumns = typeof channels.$inferSelect;
type DeliveryColumns = typeof deliveries.$inferSelect;
type AttemptColumns = typeof deliveryAttempts.$inferSelect;
type Health = ChannelColumns['health'];

interface DeliverySettings {
  attach: 'csv' | 'xlsx' | 'json' | null;
  link: { format: 'csv' | 'xlsx' | 'json'; expiresInDays: number } | null;
  inlineRows: number;
  sendWhenSkipped: boolean;
  csvFormulaSafe: boolean;
  subject: string;
  body: string;
  target: Record<string, unknown>;
}

const channelOf = (r: ChannelColumns) => ({
  ...r, lastError: r.lastError ? { code: r.lastError.code, message: r.lastError.message, at: new Date(r.lastError.at) } : null,
});

function nameTaken(err: unknown): never {
  if (pgErrorCode(err) === '23505' && pgConstraint(err) === 'channels_name_key') {
    throw new DomainError('validation.failed', 'A channel with this name exists', {
      errors: [{ field: 'name', code: 'validation.unique', message: 'is already used by another channel' }],
    });
  }
  throw err;
}

function missingChannel(err: unknown): never {
  if (pgErrorCode(err) === '23503' && (pgConstraint(err)?.includes('channel_id') ?? false)) {
    throw new DomainError('validation.failed', 'No such channel', { errors: [{ field: 'channel_id', code: 'validation.invalid', message: 'is not a channel' }] });
  }
  throw err;
}

export function createChannelsRepo(db: Tx): ChannelsRepo {
  return {
    async find(id: string) {
      const [row] = await db.select().from(channels).where(eq(channels.id, id));
      return row ? channelOf(row) : undefined;
    },
    async insert(c: Omit<typeof channels.$inferInsert, 'health' | 'lastError' | 'lastAttemptAt' | 'version'>) {
      try {
        const [row] = await db.insert(channels).values(c).returning();
        return channelOf(row!);
      } catch (err) {
        return nameTaken(err);
      }
    },
    async update(id: string, version: number, changes: Partial<Pick<ChannelColumns, 'name' | 'settings' | 'secretsSealed'>>, now: Date) {
      try {
        return channelOf(await updateVersioned(db, channels, id, version, changes, 'channel', now));
      } catch (err) {
        return nameTaken(err);
      }
    },
    async delete(id: string): Promise<'deleted' | 'in_use' | 'not_found'> {
      try {
        // In a savepoint: a refusal by the foreign key must not abort the caller's transaction.
        const rows = await inSavepoint(db, (sp) => sp.delete(channels).where(eq(channels.id, id)).returning({ id: channels.id }));
        return rows.length > 0 ? 'deleted' : 'not_found';
      } catch (err) {
        if (pgErrorCode(err) === '23503') return 'in_use';
        throw err;
      }
    },
    async dependents(id: string) {
      const rows = await db.selectDistinct({ id: reports.id, title: reports.title }).from(deliveries)
        .innerJoin(reports, eq(reports.id, deliveries.reportId)).where(eq(deliveries.channelId, id)).orderBy(asc(reports.title));
      return rows.map((r) => ({ type: 'report', id: r.id, name: r.title }));
    },
    async list(q: PageRequest): Promise<Page<ReturnType<typeof channelOf>>> {
      const key = sql<string>`lower(${channels.name})`;
      const where = q.cursor ? gt(key, decodeStringCursor(q.cursor, 2)[0]!) : undefined;
      const rows = await db.select({ row: channels, sortKey: key }).from(channels).where(where).orderBy(asc(key)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.sortKey, r.row.id], (r) => channelOf(r.row));
    },
    async refreshHealth(id: string): Promise<{ before: Health; after: Health } | undefined> {
      // One statement: lock the channel row, read the latest finished attempt, set health from it.
      // Only the latest attempt is read (index channel_id, finished_at); a failure becomes the
      // last error, a success keeps the one before (the channel's most recent error stays visible).
      const rows = await db.execute<{ before: Health; after: Health }>(sql`
        with prev as (select id, health from channels where id = ${id} for update),
        latest as (
          select status, error, finished_at from delivery_attempts
          where channel_id = ${id} and finished_at is not null and status in ('sent', 'failed')
          order by finished_at desc, id desc limit 1
        )
        update channels c set
          health = coalesce((select case when status = 'sent' then 'healthy' else 'failing' end from latest), 'unknown'),
          last_error = coalesce((select jsonb_build_object('code', error->>'code', 'message', error->>'message',
            'at', to_char(finished_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) from latest where status = 'failed' and error is not null), c.last_error),
          last_attempt_at = (select finished_at from latest)
        from prev where c.id = prev.id
        returning prev.health as before, c.health as after`);
      const row = (rows as unknown as Array<{ before: Health; after: Health }>)[0];
      return row ? { before: row.before, after: row.after } : undefined;
    },
  };
}

const deliveryOf = (r: DeliveryColumns & { channelType: string }) => ({
  id: r.id, reportId: r.reportId, channelId: r.channelId, channelType: r.channelType, position: r.position,
  // Deliveries saved before csvFormulaSafe existed have it on, its default.
  settings: { csvFormulaSafe: true, ...r.settings } as unknown as DeliverySettings, version: r.version, createdAt: r.createdAt, updatedAt: r.updatedAt,
});

export function createDeliveriesRepo(db: Tx): DeliveriesRepo {
  const select = (tx: Tx) => tx.select({ d: deliveries, channelType: channels.type }).from(deliveries)
    .innerJoin(channels, eq(channels.id, deliveries.channelId));
  const view = (r: { d: DeliveryColumns; channelType: string }) => deliveryOf({ ...r.d, channelType: r.channelType });
  const lockReport = async (tx: Tx, reportId: string) => {
    const [r] = await tx.select({ id: reports.id }).from(reports).where(eq(reports.id, reportId)).for('update');
    if (!r) throw notFound('report');
  };
  const count = async (tx: Tx, reportId: string) => {
    const [c] = await tx.select({ n: sql<number>`count(*)::int` }).from(deliveries).where(eq(deliveries.reportId, reportId));
    return c?.n ?? 0;
  };
  /** Moves the delivery `id` to `to`, shifting the ones between (positions stay 1..n). */
  const move = async (tx: Tx, reportId: string, id: string, from: number, to: number) => {
    if (from === to) return;
    if (to < from) {
      await tx.update(deliveries).set({ position: sql`${deliveries.position} + 1` })
        .where(and(eq(deliveries.reportId, reportId), gte(deliveries.position, to), sql`${deliveries.position} < ${from}`));
    } else {
      await tx.update(deliveries).set({ position: sql`${deliveries.position} - 1` })
        .where(and(eq(deliveries.reportId, reportId), sql`${deliveries.position} > ${from}`, sql`${deliveries.position} <= ${to}`));
    }
    await tx.update(deliveries).set({ position: to }).where(eq(deliveries.id, id));
  };
  const findIn = async (tx: Tx, reportId: string, id: string) => {
    const [r] = await select(tx).where(and(eq(deliveries.reportId, reportId), eq(deliveries.id, id)));
    return r ? view(r) : undefined;
  };
  return {
    async list(reportId: string) {
      const rows = await select(db).where(eq(deliveries.reportId, reportId)).orderBy(asc(deliveries.position));
      return rows.map(view);
    },
    find: (reportId: string, id: string) => findIn(db, reportId, id),
    async findById(id: string) {
      const [r] = await select(db).where(eq(deliveries.id, id));
      return r ? view(r) : undefined;
    },
    async insert(d: { id: string; reportId: string; channelId: string; position: number | undefined; settings: DeliverySettings; now: Date }) {
      await lockReport(db, d.reportId);
      const n = await count(db, d.reportId);
      try {
        // In a savepoint: a channel deleted meanwhile (the foreign key) must not abort the caller's transaction.
        await inSavepoint(db, (sp) => sp.insert(deliveries).values({
          id: d.id, reportId: d.reportId, channelId: d.channelId, position: n + 1,
          settings: d.settings as unknown as Record<string, unknown>, createdAt: d.now, updatedAt: d.now,
        }));
      } catch (err) {
        return missingChannel(err);
      }
      const to = Math.min(d.position ?? n + 1, n + 1);
      await move(db, d.reportId, d.id, n + 1, to);
      return (await findIn(db, d.reportId, d.id))!;
    },
    async replace(reportId: string, id: string, version: number, change: { channelId: string; position: number | undefined; settings: DeliverySettings }, now: Date) {
      await lockReport(db, reportId);
      const [current] = await db.select().from(deliveries).where(and(eq(deliveries.reportId, reportId), eq(deliveries.id, id)));
      if (!current) throw notFound('delivery');
      if (current.version !== version) throw versionConflict();
      try {
        // In a savepoint: a channel deleted meanwhile (the foreign key) must not abort the caller's transaction.
        await inSavepoint(db, (sp) => sp.update(deliveries).set({
          channelId: change.channelId, settings: change.settings as unknown as Record<string, unknown>,
          version: sql`${deliveries.version} + 1`, updatedAt: now,
        }).where(eq(deliveries.id, id)));
      } catch (err) {
        return missingChannel(err);
      }
      if (change.position !== undefined) {
        const n = await count(db, reportId);
        await move(db, reportId, id, current.position, Math.min(change.position, n));
      }
      return (await findIn(db, reportId, id))!;
    },
    async delete(reportId: string, id: string): Promise<boolean> {
      await lockReport(db, reportId);
      const [gone] = await db.delete(deliveries).where(and(eq(deliveries.reportId, reportId), eq(deliveries.id, id))).returning({ position: deliveries.position });
      if (!gone) return false;
      await db.update(deliveries).set({ position: sql`${deliveries.position} - 1` })
        .where(and(eq(deliveries.reportId, reportId), sql`${deliveries.position} > ${gone.position}`));
      return true;
    },
  };
}

const attemptOf = (r: AttemptColumns) => ({
  ...r, preview: (r.preview ?? null) as never,
  history: (r.history ?? []).map((h) => ({ ...h, at: new Date(h.at) })),
});

/** Requests to append to an attempt's history (jsonb ||), or the column unchanged. */
const appended = (history: AttemptSend[] | undefined) => (history && history.length > 0
  ? sql`${deliveryAttempts.history} || ${JSON.stringify(history.map((h) => ({ ...h, at: h.at.toISOString() })))}::jsonb`
  : sql`${deliveryAttempts.history}`);

export function createAttemptsRepo(db: Tx): AttemptsRepo {
  return {
    async begin(start: { runId: string; deliveryId: string; channelId: string; channelName: string; channelType: string; position: number; now: Date }, id: string) {
      // Insert, or take over the row a lost worker (or a queued retry) left; a sent row stays sent.
      const taken = attemptLeaves('begin');
      const [row] = await db.insert(deliveryAttempts).values({
        id, runId: start.runId, deliveryId: start.deliveryId, channelId: start.channelId, channelName: start.channelName,
        channelType: start.channelType, position: start.position, status: 'sending', startedAt: start.now, createdAt: start.now, updatedAt: start.now,
      }).onConflictDoUpdate({
        target: [deliveryAttempts.runId, deliveryAttempts.deliveryId],
        set: {
          status: sql`case when ${taken} then 'sending' else ${deliveryAttempts.status} end`,
          startedAt: sql`case when ${taken} then excluded.started_at else ${deliveryAttempts.startedAt} end`,
          channelId: sql`case when ${taken} then excluded.channel_id else ${deliveryAttempts.channelId} end`,
          channelName: sql`case when ${taken} then excluded.channel_name else ${deliveryAttempts.channelName} end`,
          updatedAt: start.now,
        },
      }).returning();
      // A row that comes back `sent` was sent before: a new or taken-over one is `sending`.
      return { attempt: attemptOf(row!), alreadySent: row!.status === 'sent' };
    },
    async finish(id: string, end: AttemptEnd) {
      const [row] = await db.update(deliveryAttempts).set({
        status: end.status, sends: sql`${deliveryAttempts.sends} + ${end.sends}`, finishedAt: end.finishedAt, statusCode: end.statusCode,
        peerMessageId: end.peerMessageId, detail: end.detail, error: end.error,
        preview: (end.preview ?? null) as Record<string, unknown> | null, history: appended(end.history), updatedAt: end.finishedAt,
      }).where(and(eq(deliveryAttempts.id, id), attemptLeaves('finish'))).returning();
      return row ? attemptOf(row) : undefined;
    },
    async handBack(id: string, back: { sends: number; status: 'sending' | 'queued'; now: Date; history?: AttemptSend[] }): Promise<void> {
      await db.update(deliveryAttempts).set({ status: back.status, sends: sql`${deliveryAttempts.sends} + ${back.sends}`, history: appended(back.history), updatedAt: back.now })
        .where(and(eq(deliveryAttempts.id, id), attemptLeaves('handBack')));
    },
    async find(id: string) {
      const [row] = await db.select().from(deliveryAttempts).where(eq(deliveryAttempts.id, id));
      return row ? attemptOf(row) : undefined;
    },
    async listForRun(runId: string) {
      const rows = await db.select().from(deliveryAttempts).where(eq(deliveryAttempts.runId, runId)).orderBy(asc(deliveryAttempts.position), asc(deliveryAttempts.createdAt));
      return rows.map(attemptOf);
    },
    async queue(id: string, now: Date) {
      const [row] = await db.update(deliveryAttempts).set({ status: 'queued', updatedAt: now })
        .where(and(eq(deliveryAttempts.id, id), attemptLeaves('queue'))).returning();
      return row ? attemptOf(row) : undefined;
    },
    async claim(id: string, now: Date) {
      const [row] = await db.update(deliveryAttempts).set({ status: 'sending', updatedAt: now })
        .where(and(eq(deliveryAttempts.id, id), attemptLeaves('claim'))).returning();
      return row ? attemptOf(row) : undefined;
    },
    /**
     * Resends whose job went missing: queued attempts untouched since `queuedBefore` (their job is
     * queued again by the caller), and sending ones of finished runs untouched since
     * `sendingBefore` (their worker is gone: they end failed).
     */
    async stuckResends(queuedBefore: Date, sendingBefore: Date, now: Date) {
      const queued = await db.select({ id: deliveryAttempts.id, runId: deliveryAttempts.runId }).from(deliveryAttempts)
        .where(and(eq(deliveryAttempts.status, 'queued'), sql`${deliveryAttempts.updatedAt} < ${queuedBefore.toISOString()}::timestamptz`)).limit(500);
      const lost = await db.execute<{ id: string }>(sql`
        update delivery_attempts a set status = 'failed', finished_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz,
          error = '{"code":"delivery.worker_lost","message":"The worker sending it stopped; retry the attempt"}'::jsonb
        from runs r
        where r.id = a.run_id and ${statusIn(sql`a.status`, ATTEMPT_WRITES.abandon.from)} and r.status not in ('pending', 'running')
          and a.updated_at < ${sendingBefore.toISOString()}::timestamptz
        returning a.id`) as unknown as Array<{ id: string }>;
      return { queued, lost: lost.length };
    },
    async failedOfChannel(channelId: string, since: Date, limit: number) {
      const rows = await db.select().from(deliveryAttempts)
        .where(and(eq(deliveryAttempts.channelId, channelId), eq(deliveryAttempts.status, 'failed'), isNotNull(deliveryAttempts.deliveryId), gte(deliveryAttempts.createdAt, since)))
        .orderBy(desc(deliveryAttempts.createdAt)).limit(limit);
      return rows.map(attemptOf);
    },
  };
}
