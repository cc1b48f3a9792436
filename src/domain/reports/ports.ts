/** The ports of the reports domain (stored by src/infra/db/stores/reports-repo.ts). */
import type { Page, PageRequest } from '../../core/cursor.js';
import type { ArtifactStore } from '../artifacts/ports.js';
import type { QueriesRepo } from '../queries/ports.js';
import type { ReportRecord } from './model.js';

/** The fields a change may set (version and updated_at are the store's). */
export type ReportChanges = Partial<Pick<ReportRecord,
  'title' | 'key' | 'description' | 'queryId' | 'queryVersion' | 'parameters' | 'schedule' | 'condition' | 'paused' | 'nextRunAt'>>;

export interface ReportFilter {
  queryId?: string | undefined;
  paused?: boolean | undefined;
}

/** What a report's runs leave behind: result files to remove and runs to stop. */
export interface ReportRunLeftovers {
  resultKeys: string[];
  /** Runs still pending or running. */
  unfinishedRunIds: string[];
}

export interface ReportsRepo {
  find(id: string): Promise<ReportRecord | undefined>;
  /** Reads the report and locks its row until the transaction ends (use inside `transaction`). */
  findForUpdate(id: string): Promise<ReportRecord | undefined>;
  /**
   * Undefined when another report holds the key; throws validation.failed on query_id
   * (validation.invalid) when the query does not exist.
   */
  insert(report: Omit<ReportRecord, 'version' | 'lastRun'>): Promise<ReportRecord | undefined>;
  /** The keys that are `base` or `base-…`. */
  keysLike(base: string): Promise<string[]>;
  /**
   * Versioned when `version` is given: not_found for an unknown id, conflict.version for a stale
   * one. Bumps the version either way. Insert's field errors, and key (validation.unique) when taken.
   * `locked`: the report as findForUpdate read it in this transaction; the answer keeps its last
   * run rather than reading it again (no change moves last_run_id, and no other writer can while
   * the row is locked), one statement instead of two.
   */
  update(id: string, version: number | undefined, changes: ReportChanges, now: Date, locked?: ReportRecord): Promise<ReportRecord>;
  /** Deletes the report; its runs go with it. False when there was none. */
  delete(id: string): Promise<boolean>;
  /** Ordered by title as people read it (lower(title)), then id. */
  list(q: PageRequest & ReportFilter): Promise<Page<ReportRecord>>;
  runLeftovers(reportId: string): Promise<ReportRunLeftovers>;
}

/** Who manages a report (an import, the configuration directory) as its views show it. */
export interface ReportManagement { by: 'import' | 'gitops'; path: string | null; detached: boolean }

/** A report as the API shows it: with its configuration mark (null when nothing manages it). */
export interface ReportListing {
  report: ReportRecord;
  managed: ReportManagement | null;
}

/**
 * The reports as the API reads them, each read in one statement. `versions` is text that changes
 * whenever anything the read shows changes (the reports' versions, their next and last runs,
 * their marks, and which reports a page holds): an ETag is made from it; the `...Versions` reads
 * return the same text without reading the reports themselves.
 */
export interface ReportsReadModel {
  page(q: PageRequest & ReportFilter): Promise<{ page: Page<ReportListing>; versions: string }>;
  pageVersions(q: PageRequest & ReportFilter): Promise<string>;
  one(id: string): Promise<{ listing: ReportListing; versions: string } | undefined>;
  oneVersions(id: string): Promise<string | undefined>;
}

/** The reports' store for reads; changes go through the unit of work (tx.reports). */
export type ReportsStore = ReportsRepo;

/** Where the reports domain reads the queries it runs (the queries store fits). */
export type QuerySource = Pick<QueriesRepo, 'find' | 'findVersion'>;

/** Where deleted reports' result files are removed. */
export type ResultFiles = Pick<ArtifactStore, 'remove'>;

