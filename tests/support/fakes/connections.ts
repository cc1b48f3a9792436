/**
 * The connections repository in memory (names unique as people read them, keys unique, versioned changes, a
 * connection a query uses cannot be deleted), rolled back with the unit of work; and plain
 * secrets that seal reversibly, bound to their context as the secret box is.
 */
import { notFound, validationFailed, versionConflict, type Dependent } from '../../../src/core/errors.js';
import { keyTaken } from '../../../src/core/slug.js';
import type { Page, PageRequest } from '../../../src/core/cursor.js';
import type { Secrets } from '../../../src/core/secrets.js';
import type { ConnectionChanges, ConnectionRecord, NewConnection } from '../../../src/domain/connections/model.js';
import type { ConnectionsRepo } from '../../../src/domain/connections/ports.js';
import type { SchemaSnapshot } from '../../../src/domain/plugins/connector.js';
import type { FakeQueries } from './queries.js';
import { keysLike, MemoryTable, pageOf, type Transactional } from './table.js';

export class FakeConnections implements ConnectionsRepo, Transactional {
  readonly rows = new MemoryTable<ConnectionRecord>();
  /** The schema snapshots, apart from the records as the store keeps them apart from their reads. */
  private readonly snapshots = new Map<string, SchemaSnapshot>();

  /** With the queries fake, a connection a query uses is in use (as the store's foreign keys say). */
  constructor(private readonly queries?: FakeQueries) {}

  private nameTaken(name: string, except?: string): boolean {
    return this.rows.all().some((c) => c.id !== except && c.name.toLowerCase() === name.toLowerCase());
  }

  async find(id: string): Promise<ConnectionRecord | undefined> {
    return this.rows.get(id);
  }

  async keysLike(base: string): Promise<string[]> {
    return keysLike(this.rows.all(), base);
  }

  async insert(connection: NewConnection): Promise<ConnectionRecord | undefined> {
    if (this.rows.all().some((c) => c.key === connection.key)) return undefined;
    if (this.nameTaken(connection.name)) throw validationFailed([{ field: 'name', code: 'validation.unique', message: 'is taken' }]);
    return this.rows.put({ ...connection, version: 1, schemaRefreshedAt: null });
  }

  async update(id: string, version: number, changes: ConnectionChanges, now: Date): Promise<ConnectionRecord> {
    const row = this.rows.get(id);
    if (!row) throw notFound('connection');
    if (row.version !== version) throw versionConflict();
    if (changes.name !== undefined && this.nameTaken(changes.name, id)) throw validationFailed([{ field: 'name', code: 'validation.unique', message: 'is taken' }]);
    if (changes.key !== undefined && this.rows.all().some((c) => c.id !== id && c.key === changes.key)) throw keyTaken('connection');
    return this.rows.put({ ...row, ...changes, version: row.version + 1, updatedAt: now });
  }

  async delete(id: string): Promise<'deleted' | 'in_use' | 'not_found'> {
    if (!this.rows.get(id)) return 'not_found';
    if ((await this.dependents(id)).length > 0) return 'in_use';
    this.rows.delete(id);
    return 'deleted';
  }

  async dependents(id: string): Promise<Dependent[]> {
    if (!this.queries) return [];
    const ids = new Set([
      ...this.queries.queries.all().filter((q) => q.connectionId === id).map((q) => q.id),
      ...this.queries.versions.all().filter((v) => v.connectionId === id).map((v) => v.queryId),
    ]);
    return [...ids].map((queryId) => ({ type: 'query', id: queryId, name: this.queries!.queries.get(queryId)?.name ?? queryId }));
  }

  async saveSchema(id: string, snapshot: SchemaSnapshot, at: Date): Promise<void> {
    const row = this.rows.get(id);
    if (!row) return;
    this.rows.put({ ...row, schemaRefreshedAt: at });
    this.snapshots.set(id, snapshot);
  }

  async schemaOf(id: string): Promise<{ snapshot: SchemaSnapshot | null; refreshedAt: Date | null } | undefined> {
    const row = this.rows.get(id);
    return row ? { snapshot: this.snapshots.get(id) ?? null, refreshedAt: row.schemaRefreshedAt } : undefined;
  }

  async list(q: PageRequest): Promise<Page<ConnectionRecord>> {
    return pageOf(this.rows.all().sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)), q);
  }

  snapshot(): () => void {
    const restoreRows = this.rows.snapshot();
    const snapshots = new Map(this.snapshots);
    return () => {
      restoreRows();
      this.snapshots.clear();
      for (const [id, s] of snapshots) this.snapshots.set(id, s);
    };
  }
}

/** Secrets that seal by tagging the text with its context (opening it under another context fails). */
export const plainSecrets: Secrets = {
  seal: (plaintext, context) => `sealed:${context}:${Buffer.from(plaintext).toString('base64')}`,
  open(sealed, context) {
    const prefix = `sealed:${context}:`;
    if (!sealed.startsWith(prefix)) throw new Error('the sealed value belongs to another context');
    return Buffer.from(sealed.slice(prefix.length), 'base64').toString();
  },
};
