/** Connections in the store (the connections domain's ConnectionsRepo). */
import { asc, eq, getTableColumns, gt, or, sql } from 'drizzle-orm';
import { connections, queries, queryVersions } from '../schema.js';
import { inSavepoint, pgConstraint, pgErrorCode, type Tx } from '../client.js';
import { updateVersioned } from '../versioned.js';
import { keysLike, refuseTakenKey } from '../resource-keys.js';
import { DomainError } from '../../../core/errors.js';
import { decodeStringCursor, toPage, type Page, type PageRequest } from '../../../core/cursor.js';
import type { ConnectionsRepo } from '../../../domain/connections/ports.js';
import type { SchemaSnapshot } from '../../../domain/plugins/connector.js';

/**
 * A connection's columns but its schema snapshot, which only schemaOf reads: the last
 * introspection of a warehouse of a thousand tables is a megabyte of JSON, which every run's
 * claim, every list and every export would otherwise read from TOAST and parse (85 ms and 18 ms
 * of the reader's CPU a read for 800 tables of 15 columns; scripts/bench/runs.ts BENCH_SNAPSHOT_TABLES).
 */
const { schemaSnapshot: _snapshot, ...recordColumns } = getTableColumns(connections);
export const CONNECTION_COLUMNS = recordColumns;
export type ConnectionRow = Omit<typeof connections.$inferSelect, 'schemaSnapshot'>;
type ConnectionInsert = typeof connections.$inferInsert;

function nameTaken(err: unknown): never {
  refuseTakenKey(err, 'connections', 'connection');
  if (pgErrorCode(err) === '23505' && pgConstraint(err) === 'connections_name_key') {
    throw new DomainError('validation.failed', 'A connection with this name exists', {
      errors: [{ field: 'name', code: 'validation.unique', message: 'is already used by another connection' }],
    });
  }
  throw err;
}

export function connectionsRepo(tx: Tx): ConnectionsRepo {
  return {
    async find(id: string): Promise<ConnectionRow | undefined> {
      const [row] = await tx.select(CONNECTION_COLUMNS).from(connections).where(eq(connections.id, id));
      return row;
    },
    keysLike: (base: string) => keysLike(tx, connections, base),
    async insert(c: ConnectionInsert): Promise<ConnectionRow | undefined> {
      try {
        const [row] = await tx.insert(connections).values(c).onConflictDoNothing({ target: connections.key }).returning(CONNECTION_COLUMNS);
        return row;
      } catch (err) {
        return nameTaken(err);
      }
    },
    async update(id: string, version: number, changes: Partial<ConnectionInsert>, now: Date): Promise<ConnectionRow> {
      try {
        return await updateVersioned(tx, connections, id, version, changes, 'connection', now, CONNECTION_COLUMNS);
      } catch (err) {
        return nameTaken(err);
      }
    },
    async delete(id: string): Promise<'deleted' | 'in_use' | 'not_found'> {
      try {
        // In a savepoint: a refusal by the foreign key must not abort the caller's transaction.
        const rows = await inSavepoint(tx, (sp) => sp.delete(connections).where(eq(connections.id, id)).returning({ id: connections.id }));
        return rows.length > 0 ? 'deleted' : 'not_found';
      } catch (err) {
        // The foreign keys of queries and query versions decide: no check-then-delete race.
        if (pgErrorCode(err) === '23503') return 'in_use';
        throw err;
      }
    },
    async dependents(id: string) {
      const rows = await tx.selectDistinct({ id: queries.id, name: queries.name }).from(queries)
        .leftJoin(queryVersions, eq(queryVersions.queryId, queries.id))
        .where(or(eq(queries.connectionId, id), eq(queryVersions.connectionId, id)))
        .orderBy(asc(queries.name));
      return rows.map((r) => ({ type: 'query', id: r.id, name: r.name }));
    },
    async saveSchema(id: string, snapshot: SchemaSnapshot, at: Date): Promise<void> {
      await tx.update(connections).set({ schemaSnapshot: snapshot, schemaRefreshedAt: at }).where(eq(connections.id, id));
    },
    async schemaOf(id: string) {
      const [row] = await tx.select({ snapshot: connections.schemaSnapshot, refreshedAt: connections.schemaRefreshedAt })
        .from(connections).where(eq(connections.id, id));
      return row;
    },
    async list(q: PageRequest): Promise<Page<ConnectionRow>> {
      // Names are unique case-insensitively, so lower(name) alone orders (the unique index serves it).
      const key = sql<string>`lower(${connections.name})`;
      const where = q.cursor ? gt(key, decodeStringCursor(q.cursor, 2)[0]!) : undefined;
      const rows = await tx.select({ row: CONNECTION_COLUMNS, sortKey: key }).from(connections).where(where).orderBy(asc(key)).limit(q.limit + 1);
      // The cursor holds the store's own lower(name), so no other case folding can disagree with it.
      return toPage(rows, q.limit, (r) => [r.sortKey, r.row.id], (r) => r.row);
    },
  };
}

