/**
 * Optimistic concurrency for every resource with a `version` column: an update applies only when
 * the caller's version is current, and bumps it. A stale version is 409 conflict.version; an
 * unknown id is 404 not_found.
 */
import { and, eq, sql, type InferInsertModel, type InferSelectModel } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Tx } from './client.js';
import { notFound, versionConflict } from '../../core/errors.js';

type VersionedTable = PgTable & { id: PgColumn; version: PgColumn; updatedAt: PgColumn };

/** `columns`: what the update returns, when not every column (a large one the caller never shows). */
export async function updateVersioned<T extends VersionedTable>(
  tx: Tx, table: T, id: string, version: number | undefined, changes: Partial<InferInsertModel<T>>, what: string, now: Date,
  columns?: Record<string, PgColumn>,
): Promise<InferSelectModel<T>> {
  const where = version === undefined ? eq(table.id, id) : and(eq(table.id, id), eq(table.version, version));
  const update = tx.update(table)
    .set({ ...changes, version: sql`${table.version} + 1`, updatedAt: now } as never)
    .where(where);
  const rows = await (columns ? update.returning(columns) : update.returning()) as Array<InferSelectModel<T>>;
  if (rows[0]) return rows[0];
  const [exists] = await tx.select({ id: table.id }).from(table as PgTable).where(eq(table.id, id));
  if (!exists) throw notFound(what);
  throw versionConflict();
}
