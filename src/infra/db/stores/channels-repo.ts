/**
 * Channels, deliveries and delivery attempts in the store (the channels domain's ChannelsRepo,
 * DeliveriesRepo and AttemptsRepo). The database decides the races: names unique, a channel in
 * use cannot go (foreign key), positions move under the report's row lock in the caller's unit of work,
 * an attempt is unique per (run, delivery), and health follows the latest attempt in one update.
 */
import { and, asc, desc, eq, gt, gte, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { channels, deliveries, deliveryAttempts, reports, runs } from '../schema.js';
import { inSavepoint, pgConstraint, pgErrorCode, type Tx } from '../client.js';
import { ATTEMPT_WRITES, attemptLeaves, statusIn } from './status-writes.js';
import { updateVersioned } from '../versioned.js';
import { keysLike, refuseTakenKey } from '../resource-keys.js';
import { DomainError, notFound, versionConflict } from '../../../core/errors.js';
import { decodeStringCursor, toPage, type Page, type PageRequest } from '../../../core/cursor.js';
import type { AttemptEnd, AttemptsRepo, AttemptTally, ChannelsRepo, DeliveriesRepo, StuckAttempt } from '../../../domain/channels/ports.js';
import type { AttemptRecord, AttemptSend, ChannelAttemptRecord } from '../../../domain/channels/model.js';

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

export const channelOf = (r: ChannelColumns) => ({
  ...r, lastError: r.lastError ? { code: r.lastError.code, message: r.lastError.message, at: new Date(r.lastError.at) } : null,
});

function nameTaken(err: unknown): never {
  refuseTakenKey(err, 'channels', 'channel');
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

class UsedByAlerts extends Error {}

/** The alert settings name the channel (an alert channel or the fallback). */
async function usedByAlerts(db: Pick<Tx, 'execute'>, id: string): Promise<boolean> {
  const rows = await db.execute(sql`select 1 from workspace_settings where key = 'alerts'
    and (value->'channel_ids' ? ${id} or value->>'fallback_channel_id' = ${id})`);
  return [...rows].length > 0;
}

export function createChannelsRepo(db: Tx): ChannelsRepo {
  return {
    async find(id: string) {
      const [row] = await db.select().from(channels).where(eq(channels.id, id));
      return row ? channelOf(row) : undefined;
    },
    keysLike: (base: string) => keysLike(db, channels, base),
    async insert(c: Omit<typeof channels.$inferInsert, 'health' | 'lastError' | 'lastAttemptAt' | 'version'>) {
      try {
        const [row] = await db.insert(channels).values(c).onConflictDoNothing({ target: channels.key }).returning();
        return row ? channelOf(row) : undefined;
      } catch (err) {
        return nameTaken(err);
      }
    },
    async update(id: string, version: number, changes: Partial<Pick<ChannelColumns, 'name' | 'key' | 'settings' | 'secretsSealed'>>, now: Date) {
      try {
        return channelOf(await updateVersioned(db, channels, id, version, changes, 'channel', now));
      } catch (err) {
        return nameTaken(err);
      }
    },
    async delete(id: string): Promise<'deleted' | 'in_use' | 'not_found'> {
      try {
        // In a savepoint: a refusal by the foreign key must not abort the caller's transaction.
        // The alert settings are checked after the delete (which waits for a settings change that
        // locked the channel), so that they are read as that change left them.
        const rows = await inSavepoint(db, async (sp) => {
          const gone = await sp.delete(channels).where(eq(channels.id, id)).returning({ id: channels.id });
          if (gone.length > 0 && await usedByAlerts(sp, id)) throw new UsedByAlerts();
          return gone;
        });
        return rows.length > 0 ? 'deleted' : 'not_found';
      } catch (err) {
        if (err instanceof UsedByAlerts || pgErrorCode(err) === '23503') return 'in_use';
        throw err;
      }
    },
    async dependents(id: string) {
      const rows = await db.selectDistinct({ id: reports.id, title: reports.title }).from(deliveries)
        .innerJoin(reports, eq(reports.id, deliveries.reportId)).where(eq(deliveries.channelId, id)).orderBy(asc(reports.title));
      const alerts = await usedByAlerts(db, id) ? [{ type: 'settings', name: 'System alerts (PUT /api/v1/settings/alerts)' }] : [];
      return [...rows.map((r) => ({ type: 'report', id: r.id, name: r.title })), ...alerts];
    },
    async list(q: PageRequest): Promise<Page<ReturnType<typeof channelOf>>> {
      const key = sql<string>`lower(${channels.name})`;
      const where = q.cursor ? gt(key, decodeStringCursor(q.cursor, 2)[0]!) : undefined;
      const rows = await db.select({ row: channels, sortKey: key }).from(channels).where(where).orderBy(asc(key)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.sortKey, r.row.id], (r) => channelOf(r.row));
    },
  };
}

export const deliveryOf = (r: DeliveryColumns & { channelType: string; channelName: string }) => ({
  id: r.id, reportId: r.reportId, channelId: r.channelId, channelType: r.channelType, channelName: r.channelName, position: r.position,
  // Deliveries saved before csvFormulaSafe existed have it on, its default.
  settings: { csvFormulaSafe: true, ...r.settings } as unknown as DeliverySettings, version: r.version, createdAt: r.createdAt, updatedAt: r.updatedAt,
});

export function createDeliveriesRepo(db: Tx): DeliveriesRepo {
  const select = (tx: Tx) => tx.select({ d: deliveries, channelType: channels.type, channelName: channels.name }).from(deliveries)
    .innerJoin(channels, eq(channels.id, deliveries.channelId));
  const view = (r: { d: DeliveryColumns; channelType: string; channelName: string }) => deliveryOf({ ...r.d, channelType: r.channelType, channelName: r.channelName });
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

export const attemptOf = (r: AttemptColumns) => ({
  ...r, preview: (r.preview ?? null) as never,
  // Entries written before bytes_sent and response_excerpt existed have neither.
  history: (r.history ?? []).map((h) => ({ ...h, at: new Date(h.at), bytesSent: h.bytesSent ?? null, responseExcerpt: h.responseExcerpt ?? null })),
});

/** Requests to append to an attempt's history (jsonb ||), or the column unchanged. */
const appended = (history: AttemptSend[] | undefined) => (history && history.length > 0
  ? sql`${deliveryAttempts.history} || ${JSON.stringify(history.map((h) => ({ ...h, at: h.at.toISOString() })))}::jsonb`
  : sql`${deliveryAttempts.history}`);

export function createAttemptsRepo(db: Tx): AttemptsRepo {
  return {
    async take(id: string, jobId: string, now: Date) {
      // Only the job the attempt names; a failed one only when its automatic retry is planned.
      const [row] = await db.update(deliveryAttempts).set({ status: 'sending', startedAt: now, nextRetryAt: null, updatedAt: now })
        .where(and(eq(deliveryAttempts.id, id), eq(deliveryAttempts.jobId, jobId),
          or(attemptLeaves('take'), and(attemptLeaves('retry'), isNotNull(deliveryAttempts.nextRetryAt))))).returning();
      return row ? attemptOf(row) : undefined;
    },
    async finishAndTally(id: string, runId: string, end: AttemptEnd) {
      // One statement, after the caller locked the run's row: the attempt's end; the run's other
      // attempts by status (their ends committed before the lock was granted are seen); and the
      // channel's health, last error and last attempt from this end unless a later one is recorded.
      const fin = end.finishedAt.toISOString();
      const history = JSON.stringify((end.history ?? []).map((h) => ({ ...h, at: h.at.toISOString() })));
      type Row = { open: number; sent: number; failed: number; previewed: number; before: Health | null; after: Health | null };
      const rows = await db.execute<Row>(sql`
        with f as (
          update delivery_attempts set status = ${end.status}, sends = sends + ${end.sends}, finished_at = ${fin}::timestamptz,
            status_code = ${end.statusCode}, peer_message_id = ${end.peerMessageId}, detail = ${end.detail},
            error = ${end.error ? JSON.stringify(end.error) : null}::jsonb, preview = ${end.preview ? JSON.stringify(end.preview) : null}::jsonb,
            history = history || ${history}::jsonb, updated_at = ${fin}::timestamptz, next_retry_at = ${end.retry?.at.toISOString() ?? null}::timestamptz,
            retries = coalesce(${end.retry?.retries ?? null}::int, retries), job_id = coalesce(${end.retry?.jobId ?? null}::text, job_id)
          where id = ${id} and ${statusIn(sql`status`, ATTEMPT_WRITES.finish.from)}
          returning channel_id
        ),
        others as (
          select count(*) filter (where status in ('pending', 'sending', 'queued'))::int as open, count(*) filter (where status = 'sent')::int as sent,
                 count(*) filter (where status = 'failed')::int as failed, count(*) filter (where status = 'preview')::int as previewed
          from delivery_attempts where run_id = ${runId} and id <> ${id}
        ),
        prev as (select c.id, c.health from channels c join f on f.channel_id = c.id where ${end.status} in ('sent', 'failed') for update of c),
        h as (
          update channels c set health = ${end.status === 'sent' ? 'healthy' : 'failing'}, last_attempt_at = ${fin}::timestamptz,
            last_error = coalesce(${end.status === 'failed' && end.error ? JSON.stringify({ code: end.error.code, message: end.error.message, at: fin }) : null}::jsonb, c.last_error)
          from prev where c.id = prev.id and (c.last_attempt_at is null or c.last_attempt_at <= ${fin}::timestamptz)
          returning prev.health as before, c.health as after
        )
        select o.open, o.sent, o.failed, o.previewed, (select before from h) as before, (select after from h) as after
        from f cross join others o`);
      const row = (rows as unknown as Row[])[0];
      if (!row) return undefined;
      const tally: AttemptTally = { open: row.open, sent: row.sent, failed: row.failed, previewed: row.previewed };
      if (end.status === 'sent') tally.sent += 1;
      else if (end.status === 'failed') tally.failed += 1;
      else tally.previewed += 1;
      return { tally, health: row.before && row.after ? { before: row.before, after: row.after } : undefined };
    },
    async finish(id: string, end: AttemptEnd) {
      const [row] = await db.update(deliveryAttempts).set({
        status: end.status, sends: sql`${deliveryAttempts.sends} + ${end.sends}`, finishedAt: end.finishedAt, statusCode: end.statusCode,
        peerMessageId: end.peerMessageId, detail: end.detail, error: end.error,
        preview: (end.preview ?? null) as Record<string, unknown> | null, history: appended(end.history), updatedAt: end.finishedAt,
        nextRetryAt: end.retry?.at ?? null,
        ...(end.retry ? { retries: end.retry.retries, jobId: end.retry.jobId } : {}),
      }).where(and(eq(deliveryAttempts.id, id), attemptLeaves('finish'))).returning();
      return row ? attemptOf(row) : undefined;
    },
    async handBack(id: string, back: { sends: number; now: Date; history?: AttemptSend[] }): Promise<void> {
      await db.update(deliveryAttempts).set({ status: ATTEMPT_WRITES.handBack.to[0], sends: sql`${deliveryAttempts.sends} + ${back.sends}`, history: appended(back.history), updatedAt: back.now })
        .where(and(eq(deliveryAttempts.id, id), attemptLeaves('handBack')));
    },
    async giveUp(id: string, error: { code: string; message: string }, now: Date) {
      const [row] = await db.update(deliveryAttempts).set({ status: 'failed', error, finishedAt: now, updatedAt: now, nextRetryAt: null })
        .where(and(eq(deliveryAttempts.id, id), attemptLeaves('giveUp'))).returning();
      return row ? attemptOf(row) : undefined;
    },
    async find(id: string) {
      const [row] = await db.select().from(deliveryAttempts).where(eq(deliveryAttempts.id, id));
      return row ? attemptOf(row) : undefined;
    },
    async listForRun(runId: string) {
      const rows = await db.select().from(deliveryAttempts).where(eq(deliveryAttempts.runId, runId)).orderBy(asc(deliveryAttempts.position), asc(deliveryAttempts.createdAt));
      return rows.map(attemptOf);
    },
    async queue(id: string, now: Date, jobId: string) {
      const [row] = await db.update(deliveryAttempts).set({ status: 'queued', updatedAt: now, nextRetryAt: null, jobId })
        .where(and(eq(deliveryAttempts.id, id), attemptLeaves('queue'))).returning();
      return row ? attemptOf(row) : undefined;
    },
    async stuck(before: Date, limit: number): Promise<StuckAttempt[]> {
      const at = before.toISOString();
      type Row = { id: string; run_id: string; channel_id: string | null; delivery_id: string | null; status: AttemptRecord['status']; job_id: string | null };
      const rows = await db.execute<Row>(sql`
        (select id, run_id, channel_id, delivery_id, status, job_id from delivery_attempts
          where status in ('pending', 'sending', 'queued') and updated_at < ${at}::timestamptz order by updated_at limit ${limit})
        union all
        (select id, run_id, channel_id, delivery_id, status, job_id from delivery_attempts
          where next_retry_at is not null and next_retry_at < ${at}::timestamptz and status = 'failed' order by next_retry_at limit ${limit})`);
      return (rows as unknown as Row[]).map((r) => ({ id: r.id, runId: r.run_id, channelId: r.channel_id, deliveryId: r.delivery_id, status: r.status, jobId: r.job_id }));
    },
    async rejob(id: string, fromJobId: string | null, toJobId: string): Promise<boolean> {
      const rows = await db.update(deliveryAttempts).set({ jobId: toJobId })
        .where(and(eq(deliveryAttempts.id, id), fromJobId === null ? isNull(deliveryAttempts.jobId) : eq(deliveryAttempts.jobId, fromJobId)))
        .returning({ id: deliveryAttempts.id });
      return rows.length > 0;
    },
    async ofChannel(channelId: string, q: PageRequest): Promise<Page<ChannelAttemptRecord>> {
      const conditions = [eq(deliveryAttempts.channelId, channelId)];
      if (q.cursor) {
        const [at, id] = decodeStringCursor(q.cursor, 2) as [string, string];
        conditions.push(sql`(${deliveryAttempts.createdAt}, ${deliveryAttempts.id}) < (${at}::timestamptz, ${id}::uuid)`);
      }
      const rows = await db.select({ attempt: deliveryAttempts, reportId: runs.reportId, trigger: runs.trigger, reportTitle: reports.title })
        .from(deliveryAttempts)
        .innerJoin(runs, eq(runs.id, deliveryAttempts.runId))
        .innerJoin(reports, eq(reports.id, runs.reportId))
        .where(and(...conditions))
        .orderBy(desc(deliveryAttempts.createdAt), desc(deliveryAttempts.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.attempt.createdAt.toISOString(), r.attempt.id],
        (r) => ({ ...attemptOf(r.attempt), reportId: r.reportId, reportTitle: r.reportTitle, trigger: r.trigger }));
    },
    async failedOfChannel(channelId: string, since: Date, limit: number) {
      const rows = await db.select().from(deliveryAttempts)
        .where(and(eq(deliveryAttempts.channelId, channelId), eq(deliveryAttempts.status, 'failed'), isNotNull(deliveryAttempts.deliveryId), gte(deliveryAttempts.createdAt, since)))
        .orderBy(desc(deliveryAttempts.createdAt)).limit(limit);
      return rows.map(attemptOf);
    },
  };
}
