/**
 * Reports: a query (its current or a pinned version) with parameter values, an optional schedule
 * and an optional condition. next_run_at is the scheduler's truth: the schedule's first time after
 * now while scheduled and not paused, null otherwise. Every change publishes one report.updated
 * event after it committed. Deleting a report deletes its runs, removes their result files and
 * stops the runs still going.
 */
import type { Clock } from '../../core/clock.js';
import type { PageRequest } from '../../core/cursor.js';
import { notFound, validationFailed, versionConflict } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { insertUnderFreeKey } from '../../core/slug.js';
import type { Log } from '../../core/log.js';
import type { Actor } from '../audit/security-events.js';
import { bindValues, type QueryParameter } from '../queries/parameters.js';
import type { BoundValue } from '../queries/sql-template.js';
import { reportUpdated, runCancelRequested, type ReportChange } from '../events/model.js';
import type { TxRepos, UnitOfWork } from '../unit-of-work/ports.js';
import { nextOccurrence, validateSchedule, type Schedule } from '../schedules/schedule.js';
import { validateCondition } from './condition.js';
import type { Condition, ReportRecord } from './model.js';
import type { QuerySource, ReportChanges, ReportFilter, ReportListing, ReportsReadModel, ReportsRepo, ReportsStore, ResultFiles } from './ports.js';

export type ParameterValues = Record<string, BoundValue>;

export interface CreateReportInput {
  title: string;
  key?: string | undefined;
  description?: string | null | undefined;
  queryId: string;
  queryVersion?: number | null | undefined;
  parameters?: ParameterValues | undefined;
  schedule?: Schedule | null | undefined;
  condition?: Condition | null | undefined;
  paused?: boolean | undefined;
}

export interface UpdateReportInput {
  version: number;
  title?: string | undefined;
  key?: string | undefined;
  description?: string | null | undefined;
  queryId?: string | undefined;
  queryVersion?: number | null | undefined;
  parameters?: ParameterValues | undefined;
  schedule?: Schedule | null | undefined;
  condition?: Condition | null | undefined;
}

const sameSchedule = (a: Schedule | null, b: Schedule | null): boolean =>
  a === b || (a !== null && b !== null && a.cron === b.cron && a.timezone === b.timezone);

const sameValues = (a: ParameterValues, b: ParameterValues): boolean => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
};

/** The next scheduled time after `now`, or null without a schedule or while paused. */
export function nextRunOf(schedule: Schedule | null, paused: boolean, now: Date): Date | null {
  return schedule && !paused ? nextOccurrence(schedule, now) : null;
}

/**
 * The values to store: those given, coerced to their declared types (defaults are not copied in,
 * so a later change of a default applies). Throws 422 on `parameters.<name>` for an unknown name,
 * a value of the wrong type or a required parameter left without a value.
 */
export function checkParameterValues(declared: QueryParameter[], given: ParameterValues): ParameterValues {
  const bound = bindValues(declared, given, []);
  const stored: ParameterValues = {};
  for (const name of Object.keys(given)) stored[name] = bound[name] ?? null;
  return stored;
}

export function createReportsService(deps: {
  /** Reads; every change goes through the unit of work with its events. */
  store: ReportsStore; uow: UnitOfWork; queries: QuerySource; files: ResultFiles; clock: Clock; log: Log;
  /** The API's reads: a report or a page with its marks and versions, each in one statement. */
  reads: ReportsReadModel;
}) {
  const { store, clock } = deps;
  const log = deps.log.child({ component: 'reports' });

  const get = async (repo: Pick<ReportsRepo, 'find'>, id: string): Promise<ReportRecord> => {
    const row = await repo.find(id);
    if (!row) throw notFound('report');
    return row;
  };
  /** Reads and locks the report's row for the rest of the transaction. */
  const lock = (tx: ReportsRepo, id: string) => get({ find: (i) => tx.findForUpdate(i) }, id);

  /** The declared parameters of the pinned version, or of the query's current version. */
  const declaredParameters = async (queryId: string, queryVersion: number | null): Promise<QueryParameter[]> => {
    const query = await deps.queries.find(queryId);
    if (!query) throw validationFailed([{ field: 'query_id', code: 'validation.invalid', message: 'is not a query' }]);
    if (queryVersion === null) return query.parameters;
    const version = await deps.queries.findVersion(queryId, queryVersion);
    if (!version) {
      throw validationFailed([{ field: 'query_version', code: 'validation.invalid', message: `is not a version of this query (its current version is ${query.currentVersion})` }]);
    }
    return version.parameters;
  };

  /** The report's change and its event, in the change's transaction. */
  const changed = async (tx: TxRepos, report: ReportRecord, change: ReportChange): Promise<ReportRecord> => {
    await tx.outbox.add([reportUpdated(report.id, change, { nextRunAt: report.nextRunAt })]);
    return report;
  };

  return {
    list: (q: PageRequest & ReportFilter) => store.list(q),
    get: (id: string) => get(store, id),
    /** A page as the API shows it, with the versions of what it shows (for its ETag). */
    page: (q: PageRequest & ReportFilter) => deps.reads.page(q),
    /** The versions `page` would return, without reading the reports. */
    pageVersions: (q: PageRequest & ReportFilter) => deps.reads.pageVersions(q),
    /** One report as the API shows it, with its versions; not_found when there is none. */
    async one(id: string): Promise<{ listing: ReportListing; versions: string }> {
      const found = await deps.reads.one(id);
      if (!found) throw notFound('report');
      return found;
    },
    /** The versions `one` would return (undefined when there is no such report), without reading it. */
    oneVersions: (id: string) => deps.reads.oneVersions(id),

    async create(input: CreateReportInput, actor: Actor): Promise<ReportRecord> {
      const schedule = input.schedule ?? null;
      if (schedule) validateSchedule(schedule, 'schedule');
      const condition = input.condition ?? null;
      validateCondition(condition, 'condition');
      const queryVersion = input.queryVersion ?? null;
      const parameters = checkParameterValues(await declaredParameters(input.queryId, queryVersion), input.parameters ?? {});
      const paused = input.paused ?? false;
      const now = clock.now();
      const id = newId();
      return deps.uow.run(async (tx) => changed(tx, await insertUnderFreeKey('report', input.key, input.title, {
        keysLike: (base) => tx.reports.keysLike(base),
        insert: (key) => tx.reports.insert({
          id, key, title: input.title.trim(), description: input.description ?? null, queryId: input.queryId, queryVersion,
          parameters, schedule, condition, paused, nextRunAt: nextRunOf(schedule, paused, now),
          ownerId: actor.userId ?? null, createdAt: now, updatedAt: now,
        }),
      }), 'created'));
    },

    async update(id: string, input: UpdateReportInput): Promise<ReportRecord> {
      if (input.schedule) validateSchedule(input.schedule, 'schedule');
      if (input.condition !== undefined) validateCondition(input.condition, 'condition');
      return deps.uow.run(async (tx) => {
        const before = await lock(tx.reports, id);
        if (before.version !== input.version) throw versionConflict();
        const now = clock.now();
        const changes: ReportChanges = {};
        if (input.title !== undefined) changes.title = input.title.trim();
        if (input.key !== undefined) changes.key = input.key;
        if (input.description !== undefined) changes.description = input.description;
        if (input.condition !== undefined) changes.condition = input.condition;

        const queryId = input.queryId ?? before.queryId;
        const queryVersion = input.queryVersion !== undefined ? input.queryVersion : before.queryVersion;
        const given = input.parameters ?? before.parameters;
        if (queryId !== before.queryId || queryVersion !== before.queryVersion || !sameValues(given, before.parameters)) {
          // A pin kept across a change of query must name a version of the new query.
          changes.parameters = checkParameterValues(await declaredParameters(queryId, queryVersion), given);
          changes.queryId = queryId;
          changes.queryVersion = queryVersion;
        }

        if (input.schedule !== undefined && !sameSchedule(input.schedule, before.schedule)) {
          // A changed schedule takes effect from now.
          changes.schedule = input.schedule;
          changes.nextRunAt = nextRunOf(input.schedule, before.paused, now);
        }
        return changed(tx, await tx.reports.update(id, input.version, changes, now, before), 'updated');
      });
    },

    async pause(id: string): Promise<ReportRecord> {
      return deps.uow.run(async (tx) => {
        const before = await lock(tx.reports, id);
        if (before.paused) return before;
        return changed(tx, await tx.reports.update(id, undefined, { paused: true, nextRunAt: null }, clock.now(), before), 'paused');
      });
    },

    async resume(id: string): Promise<ReportRecord> {
      return deps.uow.run(async (tx) => {
        const before = await lock(tx.reports, id);
        if (!before.paused) return before;
        const now = clock.now();
        // From now: the times missed while paused are not made up.
        return changed(tx, await tx.reports.update(id, undefined, { paused: false, nextRunAt: nextRunOf(before.schedule, false, now) }, now, before), 'resumed');
      });
    },

    async delete(id: string): Promise<void> {
      // Deleted with its events: the unfinished runs' cancels and the report's end.
      const leftovers = await deps.uow.run(async (tx) => {
        await lock(tx.reports, id);
        const found = await tx.reports.runLeftovers(id);
        if (!(await tx.reports.delete(id))) throw notFound('report');
        await tx.outbox.add([...found.unfinishedRunIds.map((runId) => runCancelRequested(runId, id)), reportUpdated(id, 'deleted')]);
        return found;
      });
      // Once deleted for good: a configuration apply that deletes it may still roll back.
      await deps.uow.afterCommit(async () => {
        for (const key of leftovers.resultKeys) {
          try {
            await deps.files.remove(key);
          } catch (err) {
            log.warn('a deleted report\'s result file could not be removed', { report_id: id, result_key: key, err });
          }
        }
      });
      for (const runId of leftovers.unfinishedRunIds) log.info('run of a deleted report: cancel requested', { run_id: runId, report_id: id });
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
