/** The ports of the connections domain. */
import type { Page, PageRequest } from '../../core/cursor.js';
import type { Dependent, FieldProblem } from '../../core/errors.js';
import type { JsonSchema } from '../plugins/plugin.js';
import type { SchemaSnapshot } from '../plugins/connector.js';
import type { ConnectionChanges, ConnectionRecord, NewConnection } from './model.js';

export interface ConnectionsRepo {
  find(id: string): Promise<ConnectionRecord | undefined>;
  /**
   * Undefined when another connection holds the key; throws validation.failed (name,
   * validation.unique) when the name is taken (case-insensitive).
   */
  insert(connection: NewConnection): Promise<ConnectionRecord | undefined>;
  /** The keys that are `base` or `base-…`. */
  keysLike(base: string): Promise<string[]>;
  /** Versioned: not_found for an unknown id, conflict.version for a stale version; validation.failed (name or key, validation.unique) when taken. */
  update(id: string, version: number, changes: ConnectionChanges, now: Date): Promise<ConnectionRecord>;
  /** Deletes when nothing refers to it: 'deleted', 'in_use' (a query or query version uses it) or 'not_found'. */
  delete(id: string): Promise<'deleted' | 'in_use' | 'not_found'>;
  /** The queries whose current or earlier versions use the connection. */
  dependents(id: string): Promise<Dependent[]>;
  saveSchema(id: string, snapshot: SchemaSnapshot, at: Date): Promise<void>;
  /** The last introspection and when it was made (null, null before the first); undefined for an unknown id. */
  schemaOf(id: string): Promise<{ snapshot: SchemaSnapshot | null; refreshedAt: Date | null } | undefined>;
  /** By name, then id. */
  list(q: PageRequest): Promise<Page<ConnectionRecord>>;
}

/** Checks a value against a JSON Schema; problems are reported under `field` (dotted). */
export type SchemaCheck = (schema: JsonSchema, value: unknown, field: string) => FieldProblem[];
