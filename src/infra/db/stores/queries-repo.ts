/** Queries and their versions in the store (the queries domain's QueriesStore). */
import { and, asc, desc, eq, lt, or, sql } from 'drizzle-orm';
import { queries, queryVersions, reports } from '../schema.js';
import { pgConstraint, pgErrorCode, type Tx } from '../client.js';
import { updateVersioned } from '../versioned.js';
import { keysLike, refuseTakenKey } from '../resource-keys.js';
import { DomainError } from '../../../core/errors.js';
import { decodeCursor, decodeTimeCursor, invalidCursor, toPage, type Page, type PageRequest } from '../../../core/cursor.js';
import type { QueriesRepo, QueryUsage } from '../../../domain/queries/ports.js';

export type QueryRow = typeof queries.$inferSelect;
type QueryInsert = typeof queries.$inferInsert;
export type QueryVersionRow = typeof queryVersions.$inferSelect;

/** A unique name or key or a missing connection, told on its field; anything else goes on. */
function fieldProblem(err: unknown): never {
  refuseTakenKey(err, 'queries', 'query');
  const code = pgErrorCode(err);
  const constraint = pgConstraint(err);
  if (code === '23505' && constraint === 'queries_name_key') {
    throw new DomainError('validation.failed', 'A query with this name exists', {
      errors: [{ field: 'name', code: 'validation.unique', message: 'is already used by another query' }],
    });
  }
  if (code === '23503' && (constraint?.includes('connection_id') ?? false)) {
    throw new DomainError('validation.failed', 'No such connection', {
      errors: [{ field: 'connection_id', code: 'validation.invalid', message: 'is not a connection' }],
    });
  }
  throw err;
}

export function queriesRepo(tx: Tx): QueriesRepo {
  return {
    async find(id: string): Promise<QueryRow | undefined> {
      const [row] = await tx.select().from(queries).where(eq(queries.id, id));
      return row;
    },
    keysLike: (base: string) => keysLike(tx, queries, base),
    async insert(q: QueryInsert): Promise<QueryRow | undefined> {
      try {
        const [row] = await tx.insert(queries).values(q).onConflictDoNothing({ target: queries.key }).returning();
        return row;
      } catch (err) {
        return fieldProblem(err);
      }
    },
    async update(id: string, version: number, changes: Partial<QueryInsert>, now: Date): Promise<QueryRow> {
      try {
        return await updateVersioned(tx, queries, id, version, changes, 'query', now);
      } catch (err) {
        return fieldProblem(err);
      }
    },
    async delete(id: string): Promise<boolean> {
      try {
        const rows = await tx.delete(queries).where(eq(queries.id, id)).returning({ id: queries.id });
        return rows.length > 0;
      } catch (err) {
        // A report made since the service looked for dependents: the foreign key refuses.
        if (pgErrorCode(err) === '23503' && (pgConstraint(err)?.startsWith('reports_') ?? false)) {
          throw new DomainError('query.in_use', 'This query is still used', { dependents: await createQueryUsage(tx).dependentsOf(id) });
        }
        throw err;
      }
    },
    async list(q: PageRequest): Promise<Page<QueryRow>> {
      let where;
      if (q.cursor) {
        const { at, id } = decodeTimeCursor(q.cursor);
        const when = new Date(at);
        where = or(lt(queries.updatedAt, when), and(eq(queries.updatedAt, when), lt(queries.id, id)));
      }
      const rows = await tx.select().from(queries).where(where).orderBy(desc(queries.updatedAt), desc(queries.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.updatedAt.toISOString(), r.id], (r) => r);
    },
    async insertVersion(v: QueryVersionRow): Promise<void> {
      try {
        await tx.insert(queryVersions).values(v);
      } catch (err) {
        fieldProblem(err);
      }
    },
    async findVersion(queryId: string, number: number): Promise<QueryVersionRow | undefined> {
      const [row] = await tx.select().from(queryVersions).where(and(eq(queryVersions.queryId, queryId), eq(queryVersions.number, number)));
      return row;
    },
    async listVersions(queryId: string, q: PageRequest): Promise<Page<QueryVersionRow>> {
      const conditions = [eq(queryVersions.queryId, queryId)];
      if (q.cursor) {
        const [n] = decodeCursor(q.cursor, 1);
        if (typeof n !== 'number' || !Number.isInteger(n)) throw invalidCursor();
        conditions.push(lt(queryVersions.number, n));
      }
      const rows = await tx.select().from(queryVersions).where(and(...conditions)).orderBy(desc(queryVersions.number)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.number], (r) => r);
    },
  };
}

/** The reports that use a query (its current or a pinned version), by title: such a query cannot be deleted. */
export function createQueryUsage(db: Tx): QueryUsage {
  return {
    async dependentsOf(queryId: string): Promise<Array<{ type: string; id: string; name: string }>> {
      const rows = await db.select({ id: reports.id, title: reports.title }).from(reports)
        .where(eq(reports.queryId, queryId)).orderBy(asc(sql`lower(${reports.title})`), asc(reports.id));
      return rows.map((r) => ({ type: 'report', id: r.id, name: r.title }));
    },
  };
}
