/**
 * Row stamps (the domain's RowStamps) from PostgreSQL's own row versions: `xmin`, the transaction
 * that wrote the row's current version, changes with every write to the row, whatever column it
 * touches and whoever makes it (the API, an import, the configuration directory, the run engine,
 * a schema refresh, a channel's health, a key rotation's rewrap), so no list of "what moves
 * without a version" has to be kept in step with the code. The `version` column rides along
 * where there is one (a guard against xmin's 32-bit wrap-around), and the configuration mark's
 * row (`config_managed`, the view's `managed`) is stamped beside its resource.
 *
 * Each statement mirrors its list's order, cursor and filters exactly (connections-repo,
 * queries-repo, channels-repo, users-repo, runs-repo) and reads those stamps only: prepared statements
 * (postgres.js named statements), one text per shape of the page.
 */
import type { Sql } from '../client.js';
import { decodeStringCursor, decodeTimeCursor } from '../../../core/cursor.js';
import type { RowStamps, RunListFilter, StampedKind } from '../../../domain/reads/row-stamps.js';

const TABLE: Record<StampedKind, string> = { connection: 'connections', query: 'queries', channel: 'channels', user: 'users' };

/** A row's stamp, and the configuration mark's beside it for the kinds the configuration manages. */
const stampOf = (kind: StampedKind) => (kind === 'user'
  ? `concat(t.id, '/', t.version, '/', t.xmin) as s from users t`
  : `concat(t.id, '/', t.version, '/', t.xmin, '/', m.xmin) as s`
    + ` from ${TABLE[kind]} t left join config_managed m on m.kind = '${kind}' and m.resource_id = t.id`);

/**
 * A page's stamps, each row's on a line, and whether a next page exists (the row past the page,
 * read with limit + 1: the answer shows a next_cursor, made from the page's last row, not that row).
 */
const joined = (rows: ReadonlyArray<{ s: string }>, limit: number): string => {
  let out = '';
  for (let i = 0; i < rows.length && i < limit; i += 1) out += `${rows[i]!.s}\n`;
  return rows.length > limit ? `${out}+` : out;
};

export function createRowStamps(sql: Sql): RowStamps {
  const one = new Map<StampedKind, string>();
  const texts = new Map<string, string>();
  /** Statement texts made once per shape, so postgres.js finds its prepared statement by the same string. */
  const textOf = (key: string, make: () => string): string => {
    let text = texts.get(key);
    if (text === undefined) texts.set(key, (text = make()));
    return text;
  };
  const query = async (text: string, params: unknown[]) =>
    sql.unsafe<Array<{ s: string }>>(text, params as never[], { prepare: true });

  return {
    async one(kind, id) {
      let text = one.get(kind);
      if (text === undefined) one.set(kind, (text = `select ${stampOf(kind)} where t.id = $1::uuid`));
      const [row] = await query(text, [id]);
      return row?.s;
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
      return joined(await query(text, params), q.limit);
    },

    async run(id) {
      const text = textOf('run', () => `select concat(r.id, '/', r.xmin, '/', (select string_agg(concat(a.id, ':', a.xmin), ',' order by a.id)
        from delivery_attempts a where a.run_id = r.id)) as s from runs r where r.id = $1::uuid`);
      const [row] = await query(text, [id]);
      return row?.s;
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
      const text = textOf(`runs:${tail}`, () => `select concat(r.id, '/', r.xmin) as s from runs r ${tail}`);
      return joined(await query(text, params), q.limit);
    },
  };
}
