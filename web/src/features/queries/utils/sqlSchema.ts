/**
 * The connection's cached schema (GET /connections/{id}/schema) as the SQL editor's completion
 * namespace: schema → table → columns, each column with its type as detail, tables of the default
 * schema also offered without their schema's name. Pure; the shapes are @codemirror/lang-sql's.
 */

export interface SchemaTable {
  schema: string;
  name: string;
  kind: 'table' | 'view';
  columns: Array<{ name: string; type: string; nullable: boolean }>;
}

export interface CompletionOption { label: string; type: string; detail?: string; boost?: number }
export type Namespace = { [name: string]: Namespace } | { self: CompletionOption; children: Namespace } | readonly CompletionOption[];

/** public when a table lives there (PostgreSQL), else the one schema all tables share (MySQL's database), else none. */
export function defaultSchemaOf(tables: readonly SchemaTable[]): string | undefined {
  if (tables.some((t) => t.schema === 'public')) return 'public';
  const schemas = new Set(tables.map((t) => t.schema));
  return schemas.size === 1 ? [...schemas][0] : undefined;
}

export function completionNamespace(tables: readonly SchemaTable[]): Namespace {
  const out: Record<string, Record<string, Namespace>> = {};
  for (const t of tables) {
    const columns: CompletionOption[] = t.columns.map((c) => ({ label: c.name, type: 'property', detail: c.nullable ? `${c.type} · null` : c.type }));
    (out[t.schema] ??= {})[t.name] = { self: { label: t.name, type: t.kind === 'view' ? 'class' : 'type', detail: t.kind }, children: columns };
  }
  return out;
}

export type SqlDialectName = 'postgres' | 'mysql' | 'standard';

/** The editor's dialect for a connection's plugin id. */
export function dialectOf(connectionType: string | undefined): SqlDialectName {
  if (connectionType === 'postgres') return 'postgres';
  if (connectionType === 'mysql' || connectionType === 'mariadb') return 'mysql';
  return 'standard';
}
