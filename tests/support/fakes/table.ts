/**
 * What the in-memory fakes share: a table of rows by id that a fake unit of work can roll back,
 * and a page of a sorted list with an opaque cursor, as the stores answer.
 */
import { decodeCursor, encodeCursor, type Page, type PageRequest } from '../../../src/core/cursor.js';

/** Something a fake unit of work rolls back when the work throws. */
export interface Transactional {
  /** Takes a copy of the state; calling the answer puts it back. */
  snapshot(): () => void;
}

/** Rows by id; copies go in and out, so a caller never changes a stored row by holding it. */
export class MemoryTable<T extends { id: string }> implements Transactional {
  rows = new Map<string, T>();

  get(id: string): T | undefined {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : undefined;
  }

  put(row: T): T {
    this.rows.set(row.id, structuredClone(row));
    return structuredClone(row);
  }

  delete(id: string): boolean {
    return this.rows.delete(id);
  }

  all(): T[] {
    return [...this.rows.values()].map((r) => structuredClone(r));
  }

  snapshot(): () => void {
    const copy = new Map([...this.rows].map(([k, v]) => [k, structuredClone(v)]));
    return () => { this.rows = copy; };
  }
}

/** The keys of `rows` that are `base` or `base-…`, as the stores' keysLike answers. */
export function keysLike(rows: Array<{ key: string }>, base: string): string[] {
  return rows.map((r) => r.key).filter((k) => k === base || k.startsWith(`${base}-`));
}

/** The page of `sorted` after the cursor's row (the cursor holds the last row's id). */
export function pageOf<T extends { id: string }>(sorted: T[], q: PageRequest): Page<T> {
  const after = q.cursor ? String(decodeCursor(q.cursor, 1)[0]) : undefined;
  const start = after === undefined ? 0 : sorted.findIndex((r) => r.id === after) + 1;
  const items = sorted.slice(start, start + q.limit);
  const page: Page<T> = { items };
  if (start + q.limit < sorted.length && items.length > 0) page.next_cursor = encodeCursor([items[items.length - 1]!.id]);
  return page;
}
