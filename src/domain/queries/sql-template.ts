/**
 * Named placeholders in query SQL: `{{ region }}`. They are always sent as bound parameters,
 * never spliced into the text: compile() replaces each with the connector's placeholder ($1, ?)
 * and lists the values in order. Pure module.
 *
 * The text is read as SQL: placeholders in comments are left alone, and a placeholder inside a
 * quoted string or identifier is refused (a bound value cannot live inside quotes; write
 * `region = {{ region }}`, not `region = '{{ region }}'`).
 */
import { validationFailed } from '../../core/errors.js';

export interface SqlTemplate {
  /** The text around the placeholders: segments.length === names.length + 1. */
  segments: string[];
  /** The placeholder names in order of appearance (a name may repeat). */
  names: string[];
}

const PLACEHOLDER = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,62})\s*\}\}/;
const INSIDE = /\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/;

const sqlProblem = (message: string) => validationFailed([{ field: 'sql', code: 'validation.invalid', message }]);

/** The end (exclusive) of a quoted run that starts at `i` with `quote`; a doubled quote escapes it. */
function endOfQuoted(sql: string, i: number, quote: string): number {
  let j = i + 1;
  while (j < sql.length) {
    if (sql[j] === '\\' && quote === "'") { j += 2; continue; }
    if (sql[j] === quote) {
      if (sql[j + 1] === quote) { j += 2; continue; }
      return j + 1;
    }
    j += 1;
  }
  return sql.length;
}

export function parseSqlTemplate(sql: string): SqlTemplate {
  const segments: string[] = [];
  const names: string[] = [];
  let current = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    let end = -1;
    let quoted = false;
    if (c === '-' && next === '-') {
      const nl = sql.indexOf('\n', i);
      end = nl < 0 ? sql.length : nl;
    } else if (c === '/' && next === '*') {
      const close = sql.indexOf('*/', i + 2);
      end = close < 0 ? sql.length : close + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      end = endOfQuoted(sql, i, c);
      quoted = true;
    } else if (c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        end = close < 0 ? sql.length : close + tag[0].length;
        quoted = true;
      }
    } else if (c === '{' && next === '{') {
      const m = PLACEHOLDER.exec(sql.slice(i));
      if (!m) throw sqlProblem(`has a malformed placeholder at character ${i + 1}: write {{ name }} with a name of letters, digits and _`);
      segments.push(current);
      names.push(m[1]!);
      current = '';
      i += m[0].length;
      continue;
    }
    if (end >= 0) {
      const run = sql.slice(i, end);
      if (quoted && INSIDE.test(run)) {
        throw sqlProblem('has a placeholder inside quotes: a value is bound, so write {{ name }} without quotes around it');
      }
      current += run;
      i = end;
      continue;
    }
    current += c;
    i += 1;
  }
  segments.push(current);
  return { segments, names };
}

/** Distinct placeholder names, in order of first appearance. */
export const placeholderNames = (t: SqlTemplate): string[] => [...new Set(t.names)];

export type BoundValue = string | number | boolean | null;

/** The statement for a connector: its placeholders, and the values in their order. */
export function compileTemplate(
  t: SqlTemplate, placeholder: (n: number) => string, values: Readonly<Record<string, BoundValue>>,
): { sql: string; params: BoundValue[] } {
  let sql = t.segments[0]!;
  const params: BoundValue[] = [];
  t.names.forEach((name, k) => {
    if (!(name in values)) throw new Error(`no value bound for {{ ${name} }}`);
    params.push(values[name]!);
    sql += placeholder(params.length) + t.segments[k + 1]!;
  });
  return { sql, params };
}
