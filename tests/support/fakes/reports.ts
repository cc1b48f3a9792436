/**
 * The reports repository in memory (keys unique), rolled back with the unit of work. It checks the query a
 * report names against the queries fake, as the store's foreign key does; what a report's runs
 * leave behind is set by the test (`leftovers`).
 */
import { notFound, validationFailed, versionConflict } from '../../../src/core/errors.js';
import { keyTaken } from '../../../src/core/slug.js';
import type { Page, PageRequest } from '../../../src/core/cursor.js';
import type { ReportRecord } from '../../../src/domain/reports/model.js';
import type { ReportChanges, ReportFilter, ReportRunLeftovers, ReportsRepo } from '../../../src/domain/reports/ports.js';
import type { FakeQueries } from './queries.js';
import { keysLike, MemoryTable, pageOf, type Transactional } from './table.js';

export class FakeReports implements ReportsRepo, Transactional {
  readonly rows = new MemoryTable<ReportRecord>();
  /** What each report's runs leave behind (result files, unfinished runs), by report id. */
  leftovers = new Map<string, ReportRunLeftovers>();

  constructor(private readonly queries: FakeQueries) {}

  async find(id: string): Promise<ReportRecord | undefined> {
    return this.rows.get(id);
  }

  async findForUpdate(id: string): Promise<ReportRecord | undefined> {
    return this.rows.get(id);
  }

  async keysLike(base: string): Promise<string[]> {
    return keysLike(this.rows.all(), base);
  }

  async insert(report: Omit<ReportRecord, 'version' | 'lastRun'>): Promise<ReportRecord | undefined> {
    if (this.rows.all().some((r) => r.key === report.key)) return undefined;
    if (!this.queries.queries.get(report.queryId)) throw validationFailed([{ field: 'query_id', code: 'validation.invalid', message: 'is not a query' }]);
    return this.rows.put({ ...report, version: 1, lastRun: null });
  }

  async update(id: string, version: number | undefined, changes: ReportChanges, now: Date): Promise<ReportRecord> {
    const row = this.rows.get(id);
    if (!row) throw notFound('report');
    if (version !== undefined && row.version !== version) throw versionConflict();
    if (changes.key !== undefined && this.rows.all().some((r) => r.id !== id && r.key === changes.key)) throw keyTaken('report');
    return this.rows.put({ ...row, ...changes, version: row.version + 1, updatedAt: now });
  }

  async list(q: PageRequest & ReportFilter): Promise<Page<ReportRecord>> {
    const rows = this.rows.all()
      .filter((r) => (q.queryId === undefined || r.queryId === q.queryId) && (q.paused === undefined || r.paused === q.paused))
      .sort((a, b) => a.title.toLowerCase().localeCompare(b.title.toLowerCase()) || a.id.localeCompare(b.id));
    return pageOf(rows, q);
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  async runLeftovers(reportId: string): Promise<ReportRunLeftovers> {
    return this.leftovers.get(reportId) ?? { resultKeys: [], unfinishedRunIds: [] };
  }

  snapshot(): () => void {
    return this.rows.snapshot();
  }
}
