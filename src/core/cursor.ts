/**
 * Cursor pagination. A cursor is opaque to clients: base64url JSON of the sort key of the last
 * row of a page. Pure module.
 */
import { DomainError } from './errors.js';
import { isUuid } from './ids.js';

export type CursorKey = ReadonlyArray<string | number | null>;

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  next_cursor?: string;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function invalidCursor(): DomainError {
  return new DomainError('validation.failed', 'The cursor is not valid', {
    errors: [{ field: 'cursor', code: 'validation.invalid', message: 'pass back next_cursor exactly as received' }],
  });
}

/** Decodes a cursor made by encodeCursor with `arity` parts; a malformed one is a 422 on field cursor. */
export function decodeCursor(cursor: string, arity: number): CursorKey {
  const invalid = invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!Array.isArray(parsed) || parsed.length !== arity
    || parsed.some((v) => v !== null && typeof v !== 'string' && typeof v !== 'number')) {
    throw invalid;
  }
  return parsed as CursorKey;
}

/**
 * Given rows fetched with limit + 1, returns the page and its next cursor.
 */
export function toPage<R, T>(rows: R[], limit: number, keyOf: (row: R) => CursorKey, view: (row: R) => T): Page<T> {
  const items = rows.slice(0, limit);
  const page: Page<T> = { items: items.map(view) };
  if (rows.length > limit && items.length > 0) page.next_cursor = encodeCursor(keyOf(items[items.length - 1]!));
  return page;
}

/** A cursor whose parts are all strings (e.g. [name, id]); the last part must be a UUID. */
export function decodeStringCursor(cursor: string, arity: number): string[] {
  const key = decodeCursor(cursor, arity);
  if (key.some((v) => typeof v !== 'string') || !isUuid(key[key.length - 1] as string)) throw invalidCursor();
  return key as string[];
}

/**
 * A [time, id] cursor (newest-first lists): the time exactly as `toISOString` wrote it (any other
 * text is refused, so that JavaScript's and PostgreSQL's readings of it can never differ), the id
 * a UUID.
 */
export function decodeTimeCursor(cursor: string): { at: string; id: string } {
  const [at, id] = decodeCursor(cursor, 2);
  if (typeof at !== 'string' || typeof id !== 'string' || !isUuid(id)) throw invalidCursor();
  const time = new Date(at);
  if (Number.isNaN(time.getTime()) || time.toISOString() !== at) throw invalidCursor();
  return { at, id };
}
