import { validationFailed, type DomainError } from './errors.js';

/** A name as a file-name-safe slug: "Daily Sales (EU)" → "daily-sales-eu"; `fallback` when nothing is left. */
export function slugOf(name: string, fallback: string, max = 60): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, max) || fallback;
}

/** The longest key: a DNS label's, so that a key fits wherever a label does (openapi.yaml ResourceKey). */
const KEY_MAX = 63;

/**
 * The key a resource gets from its name when it is created: "Sales EU (daily)" → "sales-eu-daily",
 * never ending in '-' once cut to length. drizzle/0011_resource_keys.sql gave the rows that
 * existed before keys the same, in SQL.
 */
export function resourceKeyOf(name: string): string {
  return slugOf(name, 'x', KEY_MAX).replace(/-+$/, '');
}

/** The n-th key tried for a new resource: base, then base-2, base-3 …, each within the length. */
function keyCandidate(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return base.slice(0, KEY_MAX - suffix.length).replace(/-+$/, '') + suffix;
}

/** 422 on `key`: another resource of the kind holds it. */
export function keyTaken(kind: string): DomainError {
  return validationFailed([{ field: 'key', code: 'validation.unique', message: `is already used by another ${kind}` }]);
}

/** What a repository offers for inserting a resource under a key (see insertUnderFreeKey). */
export interface KeyedInsert<T> {
  /** The keys held that may be candidates from `base` (base itself and base-…). */
  keysLike(base: string): Promise<string[]>;
  /** Inserts under `key`; undefined when another resource of the kind holds it. */
  insert(key: string): Promise<T | undefined>;
}

/**
 * Inserts a new resource under a free key: the one the caller chose (taken: 422 on `key`), or
 * else the first of base, base-2, base-3 … made from the name. The store's unique index decides
 * (insert answers undefined rather than failing), so creates racing for one name end with
 * different keys and no error; reading the keys held first makes the usual case one insert.
 */
export async function insertUnderFreeKey<T>(kind: string, chosen: string | undefined, name: string, repo: KeyedInsert<T>): Promise<T> {
  if (chosen !== undefined) {
    const row = await repo.insert(chosen);
    if (row === undefined) throw keyTaken(kind);
    return row;
  }
  const base = resourceKeyOf(name);
  const held = new Set(await repo.keysLike(base));
  for (let n = 1; ; n += 1) {
    const key = keyCandidate(base, n);
    if (held.has(key)) continue;
    const row = await repo.insert(key);
    if (row !== undefined) return row;
    held.add(key);
  }
}
