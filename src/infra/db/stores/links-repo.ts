/** Shared links and their download log in the store (the links domain's LinksRepo). */
import { and, desc, eq, isNotNull, isNull, lte, gt, sql, type SQL } from 'drizzle-orm';
import { linkDownloads, links, reports } from '../schema.js';
import type { Tx } from '../client.js';
import { decodeCursor, toPage, type Page, type PageRequest } from '../../../core/cursor.js';
import type { LinksRepo } from '../../../domain/links/ports.js';

type LinkColumns = typeof links.$inferSelect;

const columns = { link: links, reportTitle: reports.title };
const recordOf = (r: { link: LinkColumns; reportTitle: string }) => ({
  id: r.link.id, runId: r.link.runId, reportId: r.link.reportId, reportTitle: r.reportTitle, format: r.link.format,
  createdBy: r.link.createdBy, createdAt: r.link.createdAt, expiresAt: r.link.expiresAt, revokedAt: r.link.revokedAt,
  downloadCount: r.link.downloadCount, lastDownloadedAt: r.link.lastDownloadedAt,
});

export function createLinksRepo(db: Tx): LinksRepo {
  const select = () => db.select(columns).from(links).innerJoin(reports, eq(reports.id, links.reportId));
  const find = async (where: SQL) => {
    const [r] = await select().where(where);
    return r ? recordOf(r) : undefined;
  };
  return {
    async insert(l: typeof links.$inferInsert) {
      await db.insert(links).values(l);
      return (await find(eq(links.id, l.id)))!;
    },
    find: (id: string) => find(eq(links.id, id)),
    findByTokenHash: (hash: string) => find(eq(links.tokenHash, hash)),
    async list(filter: { status?: 'active' | 'revoked' | 'expired' | undefined; runId?: string | undefined }, q: PageRequest, now: Date): Promise<Page<ReturnType<typeof recordOf>>> {
      const conditions: SQL[] = [];
      if (q.cursor) {
        const [at, id] = decodeCursor(q.cursor, 2) as [string, string];
        conditions.push(sql`(${links.createdAt}, ${links.id}) < (${at}::timestamptz, ${id}::uuid)`);
      }
      if (filter.runId) conditions.push(eq(links.runId, filter.runId));
      if (filter.status === 'revoked') conditions.push(isNotNull(links.revokedAt));
      if (filter.status === 'expired') conditions.push(and(isNull(links.revokedAt), lte(links.expiresAt, now))!);
      if (filter.status === 'active') conditions.push(and(isNull(links.revokedAt), gt(links.expiresAt, now))!);
      const rows = await select().where(conditions.length ? and(...conditions) : undefined)
        .orderBy(desc(links.createdAt), desc(links.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.link.createdAt.toISOString(), r.link.id], recordOf);
    },
    async downloads(id: string, limit: number) {
      const rows = await db.select().from(linkDownloads).where(eq(linkDownloads.linkId, id)).orderBy(desc(linkDownloads.at), desc(linkDownloads.id)).limit(limit);
      return rows.map((r) => ({ at: r.at, clientAddress: r.clientAddress, userAgent: r.userAgent }));
    },
    async revoke(id: string, by: string | null, now: Date) {
      const changed = await db.update(links).set({ revokedAt: now, revokedBy: by }).where(and(eq(links.id, id), isNull(links.revokedAt))).returning({ id: links.id });
      const link = await find(eq(links.id, id));
      return link ? { link, changed: changed.length > 0 } : undefined;
    },
    /** The log row and the link's count: two statements, in the caller's unit of work. */
    async recordDownload(id: string, d: { id: string; at: Date; clientAddress: string; userAgent: string | null }) {
      await db.insert(linkDownloads).values({ id: d.id, linkId: id, at: d.at, clientAddress: d.clientAddress, userAgent: d.userAgent });
      await db.update(links).set({ downloadCount: sql`${links.downloadCount} + 1`, lastDownloadedAt: d.at }).where(eq(links.id, id));
    },
  };
}
