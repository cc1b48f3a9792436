/** The ports of the queries domain. */
import type { Page, PageRequest } from '../../core/cursor.js';
import type { Dependent } from '../../core/errors.js';
import type { QueryChanges, QueryRecord, QueryVersionRecord } from './model.js';

export interface QueriesRepo {
  find(id: string): Promise<QueryRecord | undefined>;
  /**
   * Undefined when another query holds the key; throws validation.failed on name
   * (validation.unique) or connection_id (validation.invalid: no such connection).
   */
  insert(query: Omit<QueryRecord, 'version'>): Promise<QueryRecord | undefined>;
  /** The keys that are `base` or `base-…`. */
  keysLike(base: string): Promise<string[]>;
  /** Versioned: not_found for an unknown id, conflict.version for a stale one; insert's field errors, and key (validation.unique) when taken. */
  update(id: string, version: number, changes: QueryChanges, now: Date): Promise<QueryRecord>;
  /** Deletes the query and its versions; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Most recently changed first. */
  list(q: PageRequest): Promise<Page<QueryRecord>>;
  insertVersion(v: QueryVersionRecord): Promise<void>;
  findVersion(queryId: string, number: number): Promise<QueryVersionRecord | undefined>;
  /** Newest first. */
  listVersions(queryId: string, q: PageRequest): Promise<Page<QueryVersionRecord>>;
}

/** The queries' store for reads; changes go through the unit of work (tx.queries). */
export type QueriesStore = QueriesRepo;

/** What uses a query (reports, when they land): a query with dependents cannot be deleted. */
export interface QueryUsage {
  dependentsOf(queryId: string): Promise<Dependent[]>;
}
