/**
 * The snapshot the problems are judged on: what the store knows (the last scheduler tick of the
 * fleet, the queue of pending runs, lost runs, failing channels and reports, expiring API keys,
 * the retention sweep's outcome), with Redis, the storage and the configuration directory probed
 * by the process. Every query runs on an index: the pending runs (runs_unfinished_idx), the last
 * hour's finished runs (runs_finished_idx), the reports' last runs (runs_report_created_idx).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../client.js';
import type { ProblemSnapshot, ProblemSnapshotSource } from '../../../domain/alerts/ports.js';

export interface SnapshotProbes {
  redisPing(): Promise<void>;
  storage(): Promise<ProblemSnapshot['storage']>;
  gitopsFailing?: () => boolean;
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(String(v)));

export function createProblemSnapshotSource(db: Db, probes: SnapshotProbes): ProblemSnapshotSource {
  return {
    async read(now, thresholds) {
      const redis = await probes.redisPing().then(() => ({ ok: true, error: null }), (err: unknown) => ({ ok: false, error: String((err as Error)?.message ?? err).slice(0, 200) }));
      const [queue] = [...await db.execute<{ pending: number; oldest: string | null }>(sql`
        select count(*)::int as pending, min(created_at)::text as oldest from runs where status = 'pending'`)];
      const [lost] = [...await db.execute<{ count: number; latest: string | null }>(sql`
        select count(*)::int as count, max(finished_at)::text as latest from runs
        where finished_at is not null and finished_at >= ${now.toISOString()}::timestamptz - interval '1 hour' and error_code = 'run.worker_lost'`)];
      const channels = [...await db.execute<{ id: string; name: string; at: string | null }>(sql`
        select id, name, last_error->>'at' as at from channels where health = 'failing' order by name`)];
      const streak = thresholds.failureStreak;
      const reports = [...await db.execute<{ id: string; title: string; error_code: string | null }>(sql`
        select r.id, r.title, lr.error_code from reports r
        join runs lr on lr.id = r.last_run_id and lr.status = 'failed'
        where (select count(*) from (
          select x.status from runs x where x.report_id = r.id and x.finished_at is not null and x.trigger <> 'test'
          order by x.created_at desc limit ${streak}) y where y.status = 'failed') = ${streak}
        order by r.title`)];
      const keys = [...await db.execute<{ id: string; name: string; expires_at: string }>(sql`
        select id, name, expires_at::text from api_keys
        where revoked_at is null and expires_at > ${now.toISOString()}::timestamptz and expires_at <= ${now.toISOString()}::timestamptz + interval '14 days'
        order by expires_at`)];
      const status = new Map([...await db.execute<{ key: string; value: Record<string, unknown> }>(sql`
        select key, value from ops_status where key in ('scheduler.tick', 'retention', 'ai')`)].map((r) => [r.key, r.value]));
      const retention = status.get('retention') ?? {};
      // The provider's health counts only while the assistant is on.
      const [aiOn] = [...await db.execute<{ on: boolean }>(sql`
        select coalesce(value->>'provider', 'off') <> 'off' as on from workspace_settings where key = 'ai'`)];
      const ai = aiOn?.on ? status.get('ai') : undefined;
      return {
        now,
        lastSchedulerTickAt: date(status.get('scheduler.tick')?.at),
        evaluatingSince: now,
        queue: { redisAnswers: redis.ok, redisError: redis.error, pending: queue?.pending ?? 0, oldestPendingAt: date(queue?.oldest) },
        lostRuns: { count: lost?.count ?? 0, latestAt: date(lost?.latest) },
        failingChannels: channels.map((c) => ({ id: c.id, name: c.name, since: date(c.at) })),
        failingReports: reports.map((r) => ({ id: r.id, title: r.title, streak, lastError: r.error_code })),
        storage: await probes.storage(),
        retention: { failing: retention.failing === true, error: typeof retention.error === 'string' ? retention.error : null, since: date(retention.since) },
        gitops: probes.gitopsFailing ? { failing: probes.gitopsFailing() } : null,
        ai: ai ? { failing: ai.failing === true, error: typeof ai.error === 'string' ? ai.error : null } : null,
        expiringKeys: keys.map((k) => ({ id: k.id, name: k.name, expiresAt: new Date(k.expires_at) })),
      };
    },
  };
}
