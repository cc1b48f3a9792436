/** The queries repository in memory: queries (keys unique) and their versions, rolled back with the unit of work. */
import { notFound, versionConflict } from '../../../src/core/errors.js';
import { keyTaken } from '../../../src/core/slug.js';
import type { Page, PageRequest } from '../../../src/core/cursor.js';
import type { QueryChanges, QueryRecord, QueryVersionRecord } from '../../../src/domain/queries/model.js';
import type { QueriesRepo } from '../../../src/domain/queries/ports.js';
import { keysLike, MemoryTable, pageOf, type Transactional } from './table.js';

type VersionRow = QueryVersionRecord & { id: string };

export class FakeQueries implements QueriesRepo, Transactional {
  readonly queries = new MemoryTable<QueryRecord>();
  readonly versions = new MemoryTable<VersionRow>();

  async find(id: string): Promise<QueryRecord | undefined> {
    return this.queries.get(id);
  }

  async keysLike(base: string): Promise<string[]> {
    return keysLike(this.queries.all(), base);
  }

  async insert(query: Omit<QueryRecord, 'version'>): Promise<QueryRecord | undefined> {
    if (this.queries.all().some((q) => q.key === query.key)) return undefined;
    return this.queries.put({ ...query, version: 1 });
  }

  async update(id: string, version: number, changes: QueryChanges, now: Date): Promise<QueryRecord> {
    const row = this.queries.get(id);
    if (!row) throw notFound('query');
    if (row.version !== version) throw versionConflict();
    if (changes.key !== undefined && this.queries.all().some((q) => q.id !== id && q.key === changes.key)) throw keyTaken('query');
    return this.queries.put({ ...row, ...changes, version: row.version + 1, updatedAt: now });
  }

  async delete(id: string): Promise<boolean> {
    for (const v of this.versions.all()) if (v.queryId === id) this.versions.delete(v.id);
    return this.queries.delete(id);
  }

  async list(q: PageRequest): Promise<Page<QueryRecord>> {
    return pageOf(this.queries.all().sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || b.id.localeCompare(a.id)), q);
  }

  async insertVersion(v: QueryVersionRecord): Promise<void> {
    this.versions.put({ ...v, id: `${v.queryId}/${v.number}` });
  }

  async findVersion(queryId: string, number: number): Promise<QueryVersionRecord | undefined> {
    const row = this.versions.get(`${queryId}/${number}`);
    if (!row) return undefined;
    const { id: _id, ...version } = row;
    return version;
  }

  async listVersions(queryId: string, q: PageRequest): Promise<Page<QueryVersionRecord>> {
    const page = pageOf(this.versions.all().filter((v) => v.queryId === queryId).sort((a, b) => b.number - a.number), q);
    return { ...page, items: page.items.map(({ id: _id, ...v }) => v) };
  }

  /** A query with its first version, as the queries service saves one. */
  seed(query: Pick<QueryRecord, 'id' | 'connectionId' | 'sql'> & Partial<QueryRecord>): QueryRecord {
    const at = query.createdAt ?? new Date(0);
    const row = this.queries.put({
      key: `query-${query.id}`, name: `query ${query.id}`, description: null, parameters: [], currentVersion: 1, createdBy: null, version: 1, createdAt: at, updatedAt: at, ...query,
    });
    this.versions.put({
      id: `${row.id}/${row.currentVersion}`, queryId: row.id, number: row.currentVersion, sql: row.sql, parameters: row.parameters,
      connectionId: row.connectionId, restoredFrom: null, createdBy: null, createdAt: at,
    });
    return row;
  }

  snapshot(): () => void {
    const restores = [this.queries.snapshot(), this.versions.snapshot()];
    return () => { for (const restore of restores) restore(); };
  }
}
