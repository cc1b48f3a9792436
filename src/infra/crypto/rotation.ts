/**
 * Re-seals every value of the sealed columns with the current key, in batches. Safe while the
 * service runs: each row is updated only if it still holds the value that was read (a value
 * written meanwhile is left alone and counted as changed), and running it again finds nothing
 * left to do. Values no key of the ring opens are counted as failed and left as they are.
 */
import type { Sql } from '../db/client.js';
import { SecretBoxError, type SecretBox } from './secret-box.js';
import { contextOf, type SealedColumn } from './sealed-columns.js';

export interface ColumnRotation {
  /** "table.column" */
  column: string;
  /** Re-sealed with the current key by this run. */
  resealed: number;
  /** Changed by someone else between read and write: left alone (run again to be sure). */
  changed: number;
  /** Opened by no key of the ring: left alone. Their row ids (at most 20). */
  failed: number;
  failedIds: string[];
  /** Values sealed with the current key after the run. */
  current: number;
}

export interface RotationOptions {
  batchSize?: number;
  /** Told after each batch (progress for the command line). */
  onBatch?: (progress: ColumnRotation) => void;
}

/**
 * Re-seals one row's value if the row still holds `value`; false when it no longer does.
 * Throws SecretBoxError when no key opens `value`.
 */
export async function resealRow(sql: Sql, box: SecretBox, entry: SealedColumn, id: string, value: string): Promise<boolean> {
  const context = contextOf(entry, id);
  const next = box.seal(box.open(value, context), context);
  const result = await sql`update ${sql(entry.table)} set ${sql(entry.column)} = ${next}
    where ${sql(entry.idColumn)} = ${id} and ${sql(entry.column)} = ${value}`;
  return result.count === 1;
}

export async function rotateColumn(sql: Sql, box: SecretBox, entry: SealedColumn, options: RotationOptions = {}): Promise<ColumnRotation> {
  const batchSize = options.batchSize ?? 500;
  const progress: ColumnRotation = { column: `${entry.table}.${entry.column}`, resealed: 0, changed: 0, failed: 0, failedIds: [], current: 0 };
  const currentPrefix = `v2:${box.kid}:%`;
  const { table, idColumn, column } = entry;
  let after: string | undefined;
  for (;;) {
    // Keyset pages in id order: each row is visited once per run, whatever happens to it.
    const rows = await sql<Array<{ id: string; value: string }>>`
      select ${sql(idColumn)} as id, ${sql(column)} as value from ${sql(table)}
      where ${sql(column)} is not null and ${sql(column)} not like ${currentPrefix}
        ${after === undefined ? sql`` : sql`and ${sql(idColumn)} > ${after}`}
      order by ${sql(idColumn)} limit ${batchSize}`;
    for (const row of rows) {
      const id = String(row.id);
      let done: boolean;
      try {
        done = await resealRow(sql, box, entry, id, row.value);
      } catch (err) {
        if (!(err instanceof SecretBoxError)) throw err;
        progress.failed += 1;
        if (progress.failedIds.length < 20) progress.failedIds.push(id);
        continue;
      }
      if (done) progress.resealed += 1;
      else progress.changed += 1;
    }
    if (rows.length > 0) options.onBatch?.({ ...progress });
    if (rows.length < batchSize) break;
    after = String(rows[rows.length - 1]!.id);
  }
  const [count] = await sql<Array<{ n: number }>>`
    select count(*)::int as n from ${sql(table)} where ${sql(column)} like ${currentPrefix}`;
  progress.current = count?.n ?? 0;
  return progress;
}

export async function rotateSealedColumns(
  sql: Sql, box: SecretBox, columns: readonly SealedColumn[], options: RotationOptions = {},
): Promise<ColumnRotation[]> {
  const results: ColumnRotation[] = [];
  for (const entry of columns) results.push(await rotateColumn(sql, box, entry, options));
  return results;
}
