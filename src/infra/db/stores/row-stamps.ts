/**
 * Row stamps (the domain's RowStamps) from PostgreSQL's own row versions: `xmin`, the transaction
 * that wrote the row's current version, changes with every write to the row, whatever column it
 * touches and whoever makes it (the API, an import, the configuration directory, the run engine,
 * a schema refresh, a channel's health, a key rotation's rewrap), and never comes back to an
 * earlier value (a later write's transaction is a later one; a deleted row never returns), so no
 * list of "what moves without a version" has to be kept in step with the code. The `version`
 * column (a run's status) rides along, a guard against xmin's 32-bit wrap-around; the
 * configuration mark's row (`config_managed`, the view's `managed`) is stamped beside its
 * resource, and a run's stamps hold its delivery attempts' rows.
 *
 * xmin only means something within one history of the store: a point-in-time restore or a
 * `pg_resetwal` hands out transaction ids again, to other row versions. Either restarts the
 * server, so every stamp holds the server's start time (`pg_postmaster_start_time()`), and a tag
 * made before a restore (or a restart, or a failover to another server: one 200 each) never
 * matches after it. What is left is xmin's wrap-around after four billion transactions with the
 * server up all along, where the `version` or the run's status would also have to come back.
 *
 * Each statement mirrors its list's order, cursor and filters exactly (connections-repo,
 * queries-repo, channels-repo, users-repo, runs-repo) and reads those stamps only: prepared
 * statements (postgres.js named statements), one text per shape of the page, shared by the
 * requests that ask for the same stamps at once (src/infra/db/shared-reads.ts).
 */
import type { Sql } from '../client.js';
import { sharedStatements } from '../shared-reads.js';
import { decodeStringCursor, decodeTimeCursor } from '../../../core/cursor.js';
import type { RowStamps, RunListFilter, StampedKind, Stamps } from '../../../domain/reads/row-stamps.js';

const TABLE: Record<StampedKind, string> = { connection: 'connections', query: 'queries', channel: 'channels', user: 'users' };

interface Row { id: string; s: string; marked: boolean }

/** This history of the store (see above). */
const SERVER = 'pg_postmaster_start_time()';

/** A row's stamp and its configuration mark's, for the kinds the configuration manages. */
const stampOf = (kind: StampedKind) => (kind === 'user'
  ? `t.id, concat(t.id, '/', t.version, '/', t.xmin, '/', ${SERVER}) as s, false as marked from users t`
  : `t.id, concat(t.id, '/', t.version, '/', t.xmin, '/', m.xmin, '/', ${SERVER}) as s, m.kind is not null as marked`
    + ` from ${TABLE[kind]} t left join config_managed m on m.kind = '${kind}' and m.resource_id = t.id`);

/** A page's stamps: each row's on a line, and whether a next page exists (the row past it, read with limit + 1). */
function pageOf(rows: ReadonlyArray<Row>, limit: number): Stamps {
  const shown = rows.length > limit ? rows.slice(0, limit) : rows;
  let text = '';
  for (const r of shown) text += `${r.s}\n`;
  const more = rows.length > limit;
  return { text: more ? `${text}+` : text, ids: shown.map((r) => r.id), marked: shown.map((r) => r.marked), more };
}

export function createRowStamps(sql: Sql): RowStamps {
  const texts = new Map<string, string>();
  /** Statement texts made once per shape, so postgres.js finds its prepared statement by the same string. */
  const textOf = (key: string, make: () => string): string => {
    let text = texts.get(key);
    if (text === undefined) texts.set(key, (text = make()));
    return text;
  };
  /** Many requests asking for the same stamps at once share a statement, none older than its caller (shared-reads.ts). */
  const query = sharedStatements(sql);

  return {
    async one(kind, id) {
      const text = textOf(`one:${kind}`, () => `select ${stampOf(kind)} where t.id = $1::uuid`);
      const [row] = await query<Row>(text, [id]);
      return row ? { text: row.s, ids: [row.id], marked: [row.marked], more: false } : undefined;
    },

    async page(kind, q) {
      const params: unknown[] = [q.limit + 1];
      let where = '';
      let order: string;
      if (kind === 'query') {
        // Newest change first (queries-repo): updated_at, then id, both descending.
        if (q.cursor) {
          const { at, id } = decodeTimeCursor(q.cursor);
          params.push(at, id);
          where = 'where t.updated_at < $2::timestamptz or (t.updated_at = $2::timestamptz and t.id < $3::uuid)';
        }
        order = 't.updated_at desc, t.id desc';
      } else if (kind === 'user') {
        // By name, then id (users-repo).
        if (q.cursor) {
          const [name, id] = decodeStringCursor(q.cursor, 2);
          params.push(name, id);
          where = 'where t.name > $2::text or (t.name = $2::text and t.id > $3::uuid)';
        }
        order = 't.name, t.id';
      } else {
        // By name, which is unique case-insensitively (connections-repo, channels-repo).
        if (q.cursor) {
          params.push(decodeStringCursor(q.cursor, 2)[0]);
          where = 'where lower(t.name) > $2::text';
        }
        order = 'lower(t.name)';
      }
      const text = textOf(`${kind}:${where}`, () => `select ${stampOf(kind)} ${where} order by ${order} limit $1::int`);
      return pageOf(await query<Row>(text, params), q.limit);
    },

    async run(id) {
      const text = textOf('run', () => `select concat(r.id, '/', r.status, '/', r.xmin, '/', ${SERVER}) as s,
        (select array_agg(concat(a.id, ':', a.xmin) order by a.id) from delivery_attempts a where a.run_id = r.id) as attempts
        from runs r where r.id = $1::uuid`);
      const [row] = await query<{ s: string; attempts: string[] | null }>(text, [id]);
      if (!row) return undefined;
      const attempts = [...(row.attempts ?? [])].sort();
      return { text: `${row.s}\n${attempts.join(',')}`, ids: attempts.map((a) => a.slice(0, a.indexOf(':'))), marked: [], more: false };
    },

    async runs(filter: RunListFilter, q) {
      const params: unknown[] = [q.limit + 1];
      const where: string[] = [];
      const add = (value: unknown, condition: (n: number) => string) => {
        params.push(value);
        where.push(condition(params.length));
      };
      if (filter.status) add(filter.status, (n) => `r.status = $${n}::text`);
      if (filter.reportId) add(filter.reportId, (n) => `r.report_id = $${n}::uuid`);
      if (filter.trigger) add(filter.trigger, (n) => `r.trigger = $${n}::text`);
      if (q.cursor) {
        const { at, id } = decodeTimeCursor(q.cursor);
        add(at, (n) => `(r.created_at < $${n}::timestamptz or (r.created_at = $${n}::timestamptz and r.id < $${n + 1}::uuid))`);
        params.push(id);
      }
      const tail = `${where.length > 0 ? `where ${where.join(' and ')}` : ''} order by r.created_at desc, r.id desc limit $1::int`;
      const text = textOf(`runs:${tail}`, () => `select r.id, concat(r.id, '/', r.status, '/', r.xmin, '/', ${SERVER}) as s, false as marked from runs r ${tail}`);
      return pageOf(await query<Row>(text, params), q.limit);
    },
  };
}
