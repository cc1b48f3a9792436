/**
 * Configuration as code in the store (the config domain's ConfigStore): every exportable
 * resource in one read per table (each with its key; a report with its last run is not needed),
 * and the marks of what imports and the configuration directory manage. Bound to the pool, its
 * reads join the ambient unit of work when an apply runs (so they see what the apply made).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { channels, configManaged, connections, deliveries, gitopsState, queries, reports } from '../schema.js';
import type { Tx } from '../client.js';
import type { ConfigStore, ConfigState, GitopsState, ManagedMark } from '../../../domain/config/ports.js';
import type { ConfigKind } from '../../../domain/config/model.js';
import { recordOf } from './reports-repo.js';
import { channelOf, deliveryOf } from './channels-repo.js';
import { CONNECTION_COLUMNS } from './connections-repo.js';

/** The advisory lock that serialises configuration applies. */
export const CONFIG_LOCK = 7_246_135_003;

export function createConfigRepo(db: Tx): ConfigStore {
  return {
    async state(): Promise<ConfigState> {
      const [cs, qs, chs, rs, ds, ms] = await Promise.all([
        db.select(CONNECTION_COLUMNS).from(connections).orderBy(asc(connections.id)),
        db.select().from(queries).orderBy(asc(queries.id)),
        db.select().from(channels).orderBy(asc(channels.id)),
        db.select().from(reports).orderBy(asc(reports.id)),
        db.select({ d: deliveries, channelType: channels.type, channelName: channels.name }).from(deliveries)
          .innerJoin(channels, eq(channels.id, deliveries.channelId)).orderBy(asc(deliveries.reportId), asc(deliveries.position)),
        db.select().from(configManaged),
      ]);
      return {
        connections: cs,
        queries: qs,
        channels: chs.map((c) => ({ ...channelOf(c), key: c.key })),
        reports: rs.map((r) => ({ ...recordOf(r, null), key: r.key })),
        deliveries: ds.map((r) => deliveryOf({ ...r.d, channelType: r.channelType, channelName: r.channelName })),
        managed: ms.map((m) => ({ kind: m.kind, id: m.resourceId, by: m.managedBy, path: m.path, detachedAt: m.detachedAt, detachedBy: m.detachedBy })),
      };
    },
    async mark(marks) {
      if (marks.length === 0) return;
      await db.insert(configManaged).values(marks.map((m) => ({ kind: m.kind, resourceId: m.id, managedBy: m.by, path: m.path })))
        .onConflictDoUpdate({ target: [configManaged.kind, configManaged.resourceId], set: { managedBy: sql`excluded.managed_by`, path: sql`excluded.path` } });
    },
    async unmark(kind: ConfigKind, id: string) {
      await db.delete(configManaged).where(and(eq(configManaged.kind, kind), eq(configManaged.resourceId, id)));
    },
    async markOf(kind: ConfigKind, id: string): Promise<ManagedMark | undefined> {
      const [m] = await db.select().from(configManaged).where(and(eq(configManaged.kind, kind), eq(configManaged.resourceId, id)));
      return m ? { kind: m.kind, id: m.resourceId, by: m.managedBy, path: m.path, detachedAt: m.detachedAt, detachedBy: m.detachedBy } : undefined;
    },
    async marksOf(kind: ConfigKind, ids: string[]): Promise<Map<string, ManagedMark>> {
      if (ids.length === 0) return new Map();
      const rows = await db.select().from(configManaged).where(and(eq(configManaged.kind, kind), inArray(configManaged.resourceId, ids)));
      return new Map(rows.map((m) => [m.resourceId, { kind: m.kind, id: m.resourceId, by: m.managedBy, path: m.path, detachedAt: m.detachedAt, detachedBy: m.detachedBy }]));
    },
    async setDetached(kind: ConfigKind, id: string, detached: { at: Date; by: string | null } | null) {
      await db.update(configManaged).set({ detachedAt: detached?.at ?? null, detachedBy: detached?.by ?? null })
        .where(and(eq(configManaged.kind, kind), eq(configManaged.resourceId, id)));
    },
    async keyOf(kind: ConfigKind, id: string): Promise<string | undefined> {
      const table = { connection: connections, query: queries, channel: channels, report: reports }[kind];
      const [row] = await db.select({ key: table.key }).from(table).where(eq(table.id, id));
      return row?.key;
    },
    gitops: {
      async read(): Promise<GitopsState> {
        const [row] = await db.select().from(gitopsState).where(eq(gitopsState.id, 1));
        if (!row) return { directory: null, lastReconcileAt: null, result: null, errors: [], drift: [], appliedHash: null, appliedGeneration: 0, generation: 0 };
        const { id: _id, ...rest } = row;
        return rest;
      },
      async save(state) {
        await db.insert(gitopsState).values({ id: 1, ...state })
          .onConflictDoUpdate({ target: gitopsState.id, set: { ...state } });
      },
      async bump() {
        await db.insert(gitopsState).values({ id: 1, generation: 1 })
          .onConflictDoUpdate({ target: gitopsState.id, set: { generation: sql`${gitopsState.generation} + 1` } });
      },
    },
  };
}
