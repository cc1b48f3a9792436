/**
 * The `{{ name }}` placeholders of query SQL, read as the API reads them: outside comments and
 * quoted text. Only a hint for the editor (which parameters to declare); the API decides. Pure.
 */

const NAME = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,62})\s*\}\}/;

/** The end (exclusive) of a quoted run that starts at `i`; a doubled quote (or \' in strings) escapes. */
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

/** The distinct placeholder names in order of first appearance. */
export function placeholderNames(sql: string): string[] {
  const names: string[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl;
    } else if (c === '/' && next === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? sql.length : close + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      i = endOfQuoted(sql, i, c);
    } else if (c === '$' && /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.test(sql.slice(i, i + 64))) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64))![0];
      const close = sql.indexOf(tag, i + tag.length);
      i = close < 0 ? sql.length : close + tag.length;
    } else if (c === '{' && next === '{') {
      const m = NAME.exec(sql.slice(i, i + 72));
      if (m) {
        if (!names.includes(m[1]!)) names.push(m[1]!);
        i += m[0].length;
      } else {
        i += 2;
      }
    } else {
      i += 1;
    }
  }
  return names;
}

/** Which placeholders have no declaration, and which declarations no placeholder uses. */
export function parameterUse(sql: string, declared: readonly string[]): { undeclared: string[]; unused: string[] } {
  const used = placeholderNames(sql);
  return {
    undeclared: used.filter((n) => !declared.includes(n)),
    unused: declared.filter((n) => n !== '' && !used.includes(n)),
  };
}
