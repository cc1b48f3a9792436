/**
 * The alerts feature's store: system problems (one open row per fingerprint, the partial unique
 * index decides), their alert sends, the operations' status rows and leases, and the channel
 * check of the alert settings (existing channels, locked against deletion until the transaction
 * ends).
 */
import { and, desc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { decodeStringCursor, invalidCursor, toPage } from '../../../core/cursor.js';
import { alertSends, channels, opsLeases, opsStatus, systemProblems } from '../schema.js';
import type { Db } from '../client.js';
import type { Leases, OpsStatusRepo, ProblemsRepo } from '../../../domain/alerts/ports.js';
import type { AlertChannelCheck } from '../../../domain/alerts/alert-settings.js';
import type { HeartbeatStatus, ProblemKind, ProblemRecord } from '../../../domain/alerts/model.js';
import { newId } from '../../../core/ids.js';

type Row = typeof systemProblems.$inferSelect;

const problemOf = (r: Row): ProblemRecord => ({
  id: r.id, kind: r.kind as ProblemKind, fingerprint: r.fingerprint, severity: r.severity, message: r.message,
  resource: r.resourceType && r.resourceId ? { type: r.resourceType, id: r.resourceId } : null,
  stage: typeof r.details.stage === 'string' ? r.details.stage : null,
  openedAt: r.openedAt, lastSeenAt: r.lastSeenAt, resolvedAt: r.resolvedAt, lastAlertAt: r.lastAlertAt, alerts: r.alerts,
});

export function createProblemsRepo(db: Db): ProblemsRepo {
  return {
    async open() {
      const rows = await db.select().from(systemProblems).where(isNull(systemProblems.resolvedAt)).orderBy(systemProblems.openedAt, systemProblems.id);
      return rows.map(problemOf);
    },
    async insert(p, now) {
      const [row] = await db.insert(systemProblems).values({
        id: p.id, fingerprint: p.fingerprint, kind: p.kind, severity: p.severity, message: p.message,
        resourceType: p.resource?.type ?? null, resourceId: p.resource?.id ?? null, details: p.stage ? { stage: p.stage } : {},
        openedAt: now, lastSeenAt: now,
      }).onConflictDoNothing({ target: systemProblems.fingerprint, where: sql`resolved_at is null` }).returning();
      return row ? problemOf(row) : undefined;
    },
    async touch(id, seen, now) {
      await db.update(systemProblems).set({
        lastSeenAt: now, message: seen.message, severity: seen.severity, details: seen.stage ? { stage: seen.stage } : {},
      }).where(eq(systemProblems.id, id));
    },
    async resolve(id, now) {
      const [row] = await db.update(systemProblems).set({ resolvedAt: now })
        .where(and(eq(systemProblems.id, id), isNull(systemProblems.resolvedAt))).returning();
      return row ? problemOf(row) : undefined;
    },
    async alerted(id, now) {
      await db.update(systemProblems).set({ lastAlertAt: now, alerts: sql`${systemProblems.alerts} + 1` }).where(eq(systemProblems.id, id));
    },
    async recordSend(s) {
      await db.insert(alertSends).values({ id: newId(), ...s, fallback: s.fallback ? 1 : 0 });
    },
    async list(q) {
      const conditions = [
        q.state === 'open' ? isNull(systemProblems.resolvedAt) : q.state === 'resolved' ? isNotNull(systemProblems.resolvedAt) : undefined,
        q.kind ? eq(systemProblems.kind, q.kind) : undefined,
      ];
      if (q.cursor) {
        const [at, id] = decodeStringCursor(q.cursor, 2) as [string, string];
        const when = new Date(at);
        if (Number.isNaN(when.getTime())) throw invalidCursor();
        conditions.push(or(lt(systemProblems.openedAt, when), and(eq(systemProblems.openedAt, when), lt(systemProblems.id, id))));
      }
      const rows = await db.select().from(systemProblems).where(and(...conditions))
        .orderBy(desc(systemProblems.openedAt), desc(systemProblems.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.openedAt.toISOString(), r.id], problemOf);
    },
    async find(id) {
      const [row] = await db.select().from(systemProblems).where(eq(systemProblems.id, id));
      return row ? problemOf(row) : undefined;
    },
    async sendsOf(problemId) {
      const rows = await db.select().from(alertSends).where(eq(alertSends.problemId, problemId)).orderBy(alertSends.createdAt, alertSends.id);
      return rows.map((r) => ({ ...r, fallback: r.fallback === 1 }));
    },
    async sendStatus() {
      const rows = await db.execute<{ channel_id: string; last_sent_at: string | null; last_error: string | null; last_error_at: string | null }>(sql`
        select c.channel_id,
          (select max(created_at) from alert_sends s where s.channel_id = c.channel_id and s.status = 'sent')::text as last_sent_at,
          e.error as last_error, e.created_at::text as last_error_at
        from (select distinct channel_id from alert_sends where channel_id is not null) c
        left join lateral (select error, created_at from alert_sends s where s.channel_id = c.channel_id and s.status = 'failed'
          order by created_at desc limit 1) e on true
        order by c.channel_id`);
      const [last] = await db.select({ problemId: alertSends.problemId, event: alertSends.event, at: alertSends.createdAt, kind: systemProblems.kind })
        .from(alertSends).innerJoin(systemProblems, eq(systemProblems.id, alertSends.problemId))
        .orderBy(desc(alertSends.createdAt)).limit(1);
      return {
        channels: [...rows].map((r) => ({
          channelId: r.channel_id, lastSentAt: r.last_sent_at ? new Date(r.last_sent_at) : null,
          lastError: r.last_error, lastErrorAt: r.last_error_at ? new Date(r.last_error_at) : null,
        })),
        lastAlert: last && last.problemId && last.event !== 'test' ? { problemId: last.problemId, kind: last.kind, event: last.event, at: last.at } : null,
      };
    },
  };
}

const dateOrNull = (v: unknown): Date | null => (typeof v === 'string' ? new Date(v) : null);

export function createOpsStatusRepo(db: Db): OpsStatusRepo {
  const get = async (key: string) => {
    const [row] = await db.select({ value: opsStatus.value }).from(opsStatus).where(eq(opsStatus.key, key));
    return row?.value;
  };
  const put = async (key: string, value: Record<string, unknown>, now: Date) => {
    await db.insert(opsStatus).values({ key, value, updatedAt: now })
      .onConflictDoUpdate({ target: opsStatus.key, set: { value, updatedAt: now } });
  };
  return {
    get, put,
    async heartbeat(): Promise<HeartbeatStatus | undefined> {
      const v = await get('heartbeat');
      if (!v) return undefined;
      return {
        state: (v.state as HeartbeatStatus['state'] | undefined) ?? 'off',
        lastSuccessAt: dateOrNull(v.last_success_at), lastError: typeof v.last_error === 'string' ? v.last_error : null,
        lastErrorAt: dateOrNull(v.last_error_at), nextCallAt: dateOrNull(v.next_call_at), failCalled: v.fail_called === true,
      };
    },
    async putHeartbeat(s, now) {
      await put('heartbeat', {
        state: s.state, last_success_at: s.lastSuccessAt?.toISOString() ?? null, last_error: s.lastError,
        last_error_at: s.lastErrorAt?.toISOString() ?? null, next_call_at: s.nextCallAt?.toISOString() ?? null, fail_called: s.failCalled === true,
      }, now);
    },
  };
}

/** Leases on the store's clock, so that processes whose clocks differ agree on who holds one. */
export function createLeases(db: Db): Leases {
  return {
    async acquire(name, holder, ms) {
      const rows = await db.execute<{ holder: string }>(sql`
        insert into ops_leases (name, holder, expires_at) values (${name}, ${holder}, now() + ${`${ms} milliseconds`}::interval)
        on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
          where ops_leases.holder = excluded.holder or ops_leases.expires_at < now()
        returning holder`);
      return [...rows].length > 0;
    },
    async release(name, holder) {
      await db.delete(opsLeases).where(and(eq(opsLeases.name, name), eq(opsLeases.holder, holder)));
    },
  };
}

export function createAlertChannelCheck(db: Db): AlertChannelCheck {
  return {
    async existing(ids) {
      if (ids.length === 0) return new Set();
      // FOR KEY SHARE: a channel named here cannot be deleted until this transaction ends.
      const rows = await db.select({ id: channels.id }).from(channels).where(inArray(channels.id, ids)).for('key share');
      return new Set(rows.map((r) => r.id));
    },
  };
}

/** The enabled admins' email addresses (where alerts through email channels go). */
export function createAdminEmails(db: Db): () => Promise<string[]> {
  return async () => {
    const rows = await db.execute<{ email: string }>(sql`select email from users where role = 'admin' and enabled order by email`);
    return [...rows].map((r) => r.email);
  };
}
