/**
 * The reports as the API reads them (GET /reports, GET /reports/{id}): each report with its last
 * run and its configuration mark in one prepared statement (postgres.js named statements, plain
 * row mapping: no query building per request), and the versions of what each row shows, so that
 * an ETag can be made from the store's versions and checked (If-None-Match) by a lean statement
 * that reads those versions only.
 *
 * A row's versions: the report's `version` (every change through the API, an import or the
 * configuration directory bumps it), and what changes without a version: `next_run_at` and
 * `last_run_id` (the scheduler and the run engine), `owner_id` (set null when the owner is
 * deleted), the last run's status and end, and the configuration mark. Beside them, PostgreSQL's
 * own row versions (`xmin`) of the three rows and the server's start time, as the other
 * resources' stamps have (row-stamps.ts): a change made without the API (a data migration, SQL
 * by hand) still moves them, and a restored store, which hands versions out again, never
 * matches a tag or a kept answer from before it.
 */
import { createHash } from 'node:crypto';
import type { Sql } from '../client.js';
import { sharedStatements } from '../shared-reads.js';
import { decodeStringCursor, encodeCursor, type Page, type PageRequest } from '../../../core/cursor.js';
import type { ReportFilter, ReportListing, ReportsReadModel } from '../../../domain/reports/ports.js';
import type { ReportRecord } from '../../../domain/reports/model.js';

/** One report's versions as text; the same expression in the page and in the tag statements. */
const VERSIONS = `concat(r.id, '/', r.version, '/', r.next_run_at, '/', r.owner_id, '/', l.id, '/', l.status, '/',
  l.finished_at, '/', m.managed_by, '/', m.detached_at, '/', m.path, '/', r.xmin, '/', l.xmin, '/', m.xmin, '/',
  pg_postmaster_start_time())`;

const FROM = `from reports r
  left join runs l on l.id = r.last_run_id
  left join config_managed m on m.kind = 'report' and m.resource_id = r.id`;

/**
 * A time as milliseconds since 1970 (float8, whole: exact in a double): `new Date(ms)` is the
 * driver's Date without parsing text (the store keeps microseconds; like the text the driver
 * would parse, the milliseconds are cut, not rounded).
 */
const ms = (column: string) => `floor(extract(epoch from ${column}) * 1000)::float8`;

const COLUMNS = `r.id, r.key, r.title, r.description, r.query_id, r.query_version, r.parameters, r.schedule_cron,
  r.schedule_timezone, r.condition, r.paused, ${ms('r.next_run_at')} as next_run_at, r.owner_id,
  ${ms('r.created_at')} as created_at, ${ms('r.updated_at')} as updated_at, r.version,
  l.id as run_id, l.status as run_status, l.trigger as run_trigger, ${ms('l.created_at')} as run_created_at,
  ${ms('l.finished_at')} as run_finished_at,
  m.managed_by, m.path as managed_path, m.detached_at is not null as detached,
  lower(r.title) as sort_title, ${VERSIONS} as versions`;

interface Row {
  id: string; key: string; title: string; description: string | null; query_id: string; query_version: number | null;
  parameters: ReportRecord['parameters']; schedule_cron: string | null; schedule_timezone: string | null;
  condition: ReportRecord['condition']; paused: boolean; next_run_at: number | null; owner_id: string | null;
  created_at: number; updated_at: number; version: number;
  run_id: string | null; run_status: NonNullable<ReportRecord['lastRun']>['status'] | null;
  run_trigger: NonNullable<ReportRecord['lastRun']>['trigger'] | null; run_created_at: number | null; run_finished_at: number | null;
  managed_by: 'import' | 'gitops' | null; managed_path: string | null; detached: boolean;
  sort_title: string; versions: string;
}

const dateOf = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

function listingOf(r: Row): ReportListing {
  return {
    report: {
      id: r.id, key: r.key, title: r.title, description: r.description, queryId: r.query_id, queryVersion: r.query_version,
      parameters: r.parameters,
      schedule: r.schedule_cron !== null && r.schedule_timezone !== null ? { cron: r.schedule_cron, timezone: r.schedule_timezone } : null,
      condition: r.condition ?? null, paused: r.paused, nextRunAt: dateOf(r.next_run_at),
      lastRun: r.run_id !== null
        ? { id: r.run_id, status: r.run_status!, trigger: r.run_trigger!, createdAt: new Date(r.run_created_at!), finishedAt: dateOf(r.run_finished_at) }
        : null,
      ownerId: r.owner_id, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at), version: r.version,
    },
    managed: r.managed_by !== null ? { by: r.managed_by, path: r.managed_path, detached: r.detached } : null,
  };
}

/**
 * The page's WHERE, ORDER and LIMIT with its parameters: one statement text per combination of
 * filters (so each is its own prepared statement with its own plan: the order of
 * reports_title_idx, from the cursor on).
 */
function pageOf(q: PageRequest & ReportFilter): { tail: string; params: Array<string | number | boolean> } {
  const params: Array<string | number | boolean> = [];
  const where: string[] = [];
  if (q.cursor) {
    const [title, id] = decodeStringCursor(q.cursor, 2);
    params.push(title!, id!);
    where.push(`(lower(r.title), r.id) > ($${params.length - 1}, $${params.length}::uuid)`);
  }
  if (q.queryId !== undefined) { params.push(q.queryId); where.push(`r.query_id = $${params.length}::uuid`); }
  if (q.paused !== undefined) { params.push(q.paused); where.push(`r.paused = $${params.length}::boolean`); }
  params.push(q.limit + 1);
  const tail = `${where.length > 0 ? `where ${where.join(' and ')}` : ''}
  order by lower(r.title), r.id limit $${params.length}::int`;
  return { tail, params };
}

/** `stamps`: where the lean versions statements go (the API's lane, where they pipeline); `sql` unless given. */
export function createReportsReadModel(sql: Sql, stamps: Sql = sql): ReportsReadModel {
  /** Statement texts by the page's shape: made once, so postgres.js finds its prepared statement by the same string. */
  const texts = new Map<string, string>();
  const textOf = (what: 'rows' | 'versions', tail: string) => {
    const key = `${what}\u0000${tail}`;
    let text = texts.get(key);
    if (text === undefined) {
      // The versions as one text, each row's on a line in the page's order (what versionsOf makes
      // of the page's rows), and of that text its SHA-256 only, made by the store from its UTF-8
      // bytes: 64 characters to send, decode and hash into the tag instead of ~7.5 KB for a page
      // of 50 (hashing that text was 5 % of a kept list answer's CPU, its string a share of the
      // garbage). SHA-256 rather than md5(), which a server in FIPS mode refuses.
      text = what === 'rows' ? `select ${COLUMNS} ${FROM} ${tail}`
        : `select encode(sha256(convert_to(coalesce(string_agg(v || E'\n', '' order by t, i), ''), 'UTF8')), 'hex') as versions
  from (select ${VERSIONS} as v, lower(r.title) as t, r.id as i ${FROM} ${tail}) p`;
      texts.set(key, text);
    }
    return text;
  };
  /** The versions statements, shared by the requests that ask for the same versions at once (none older than its caller). */
  const versionsRead = sharedStatements(stamps);
  const ONE = `select ${COLUMNS} ${FROM} where r.id = $1::uuid`;
  const ONE_VERSIONS = `select ${VERSIONS} as versions ${FROM} where r.id = $1::uuid`;
  return {
    async page(q) {
      const { tail, params } = pageOf(q);
      const rows = await sql.unsafe<Row[]>(textOf('rows', tail), params, { prepare: true });
      const shown = rows.length > q.limit ? rows.slice(0, q.limit) : rows;
      const page: Page<ReportListing> = { items: shown.map(listingOf) };
      const last = shown[shown.length - 1];
      if (rows.length > q.limit && last) page.next_cursor = encodeCursor([last.sort_title, last.id]);
      // Whether a next page exists is part of what the page shows (next_cursor).
      return { page, versions: versionsOf(rows) };
    },
    async pageVersions(q) {
      const { tail, params } = pageOf(q);
      const [row] = await versionsRead<{ versions: string }>(textOf('versions', tail), params);
      return row!.versions;
    },
    async one(id) {
      const [row] = await sql.unsafe<Row[]>(ONE, [id], { prepare: true });
      return row ? { listing: listingOf(row), versions: row.versions } : undefined;
    },
    async oneVersions(id) {
      const [row] = await versionsRead<{ versions: string }>(ONE_VERSIONS, [id]);
      return row?.versions;
    },
  };
}

/** What pageVersions answers for the same rows: the SHA-256 (hex) of their versions' UTF-8 bytes, each on a line, in order. */
const versionsOf = (rows: ReadonlyArray<{ versions: string }>): string => {
  let out = '';
  for (const r of rows) out += `${r.versions}\n`;
  return createHash('sha256').update(out, 'utf8').digest('hex');
};
