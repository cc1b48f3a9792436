/**
 * The static checks of a proposed query, before EXPLAIN: the SQL (Herald's {{ name }}
 * placeholders stood in for by NULL) parses, in the connection's dialect, as exactly one
 * statement that only reads (a SELECT, its CTEs SELECTs too), and every table and column it
 * names is in the connection's cached schema. Pure. Where the parser cannot tell (columns of CTEs
 * or subqueries), it lets the name pass: EXPLAIN on the database has the last word.
 */
import type NodeSqlParser from 'node-sql-parser';
import { onFirstUse } from '../../core/on-first-use.js';
import type { SchemaTable } from '../plugins/connector.js';

export type CheckErrorCode = 'sql.parse' | 'sql.not_one_statement' | 'sql.not_read_only' | 'schema.unknown_table' | 'schema.unknown_column' | 'parameters.unknown' | 'explain.failed';

export interface CheckError {
  code: CheckErrorCode;
  message: string;
  table?: string;
  column?: string;
}

export type Dialect = 'postgresql' | 'mysql';

const sqlParser = onFirstUse<typeof NodeSqlParser>('node-sql-parser');
let parser: NodeSqlParser.Parser | undefined;
const DIALECTS: Record<Dialect, string> = { postgresql: 'PostgresQL', mysql: 'MariaDB' };

/** The SQL with each {{ name }} as NULL, for the parser (EXPLAIN binds them as parameters). */
export const withoutPlaceholders = (sql: string): string => sql.replace(/\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}/g, 'NULL');

type Node = Record<string, unknown>;

function isReadOnly(ast: Node): boolean {
  if (ast.type !== 'select') return false;
  const ctes = (ast.with ?? []) as Array<{ stmt?: Node & { ast?: Node } }>;
  return ctes.every((c) => { const s = c.stmt?.ast ?? c.stmt; return !s || s.type === 'select'; });
}

/** Names the statement gives itself (CTEs, select-list aliases), which are no schema names. */
function ownNames(sql: string): Set<string> {
  const names = new Set<string>();
  for (const m of sql.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s+as\s*\(/gi)) names.add(m[1]!.toLowerCase());
  for (const m of sql.matchAll(/\bas\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/gi)) names.add(m[1]!.toLowerCase());
  return names;
}

export function checkSql(sql: string, dialect: Dialect, tables: readonly SchemaTable[]): CheckError[] {
  const text = withoutPlaceholders(sql);
  const opt = { database: DIALECTS[dialect] };
  let ast: Node | Node[];
  try {
    parser ??= new (sqlParser().Parser)();
    ast = parser.astify(text, opt) as unknown as Node | Node[];
  } catch (err) {
    return [{ code: 'sql.parse', message: `The SQL does not parse: ${String((err as Error).message).split('\n')[0]!.slice(0, 300)}` }];
  }
  const statements = (Array.isArray(ast) ? ast : [ast]).filter((s) => s && Object.keys(s).length > 0);
  if (statements.length !== 1) return [{ code: 'sql.not_one_statement', message: `The SQL holds ${statements.length} statements; a query is exactly one` }];
  if (!isReadOnly(statements[0]!)) return [{ code: 'sql.not_read_only', message: `The SQL is a ${String(statements[0]!.type).toUpperCase()}, not a read-only SELECT` }];

  const own = ownNames(text);
  const byName = new Map<string, SchemaTable[]>();
  for (const t of tables) {
    for (const key of [t.name.toLowerCase(), `${t.schema}.${t.name}`.toLowerCase()]) byName.set(key, [...(byName.get(key) ?? []), t]);
  }
  const errors: CheckError[] = [];
  const used: SchemaTable[] = [];
  let list: string[];
  let columns: string[];
  try {
    list = parser.tableList(text, opt);
    columns = parser.columnList(text, opt);
  } catch {
    return errors;
  }
  for (const entry of new Set(list)) {
    const [, db, name] = entry.split('::') as [string, string, string];
    if (own.has(name.toLowerCase())) continue;
    const key = (db && db !== 'null' ? `${db}.${name}` : name).toLowerCase();
    const found = byName.get(key);
    if (!found) errors.push({ code: 'schema.unknown_table', message: `No table or view "${db && db !== 'null' ? `${db}.` : ''}${name}" in the connection's schema`, table: name });
    else used.push(...found);
  }
  const derived = own.size > 0 || /\(\s*select\b/i.test(text);
  for (const entry of new Set(columns)) {
    const [, table, column] = entry.split('::') as [string, string, string];
    if (column === '(.*)' || column === '*' || own.has(column.toLowerCase())) continue;
    const has = (t: SchemaTable) => t.columns.some((c) => c.name.toLowerCase() === column.toLowerCase());
    if (table && table !== 'null') {
      const candidates = byName.get(table.toLowerCase());
      if (!candidates || own.has(table.toLowerCase())) continue; // an unknown table is reported once, above
      if (!candidates.some(has)) errors.push({ code: 'schema.unknown_column', message: `No column "${column}" in "${table}"`, table, column });
    } else if (!derived && used.length > 0 && !used.some(has)) {
      errors.push({ code: 'schema.unknown_column', message: `No column "${column}" in ${used.map((t) => `"${t.name}"`).join(', ')}`, column });
    }
  }
  return errors;
}
