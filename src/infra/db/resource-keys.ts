/**
 * What the stores of keyed resources (connections, queries, channels, reports) share: the keys a
 * new one's key must not take, and a unique violation of a changed key told on its field.
 */
import { eq, like, or } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { pgConstraint, pgErrorCode, type Tx } from './client.js';
import { keyTaken } from '../../core/slug.js';

type KeyedTable = PgTable & { key: PgColumn };

/** The keys that are `base` or start with `base-` (a key is [a-z0-9-] only: nothing to escape for LIKE). */
export async function keysLike(tx: Tx, table: KeyedTable, base: string): Promise<string[]> {
  const rows = await tx.select({ key: table.key }).from(table as PgTable).where(or(eq(table.key, base), like(table.key, `${base}-%`)));
  return rows.map((r) => r.key as string);
}

/** Throws 422 on `key` when `err` is the unique violation of the table's key (`<table>_key_key`). */
export function refuseTakenKey(err: unknown, table: string, kind: string): void {
  if (pgErrorCode(err) === '23505' && pgConstraint(err) === `${table}_key_key`) throw keyTaken(kind);
}
