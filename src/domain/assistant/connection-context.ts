/**
 * The assistant's view of a connection (AssistantConnections): its dialect, its cached schema
 * (introspected first when there is none), EXPLAIN through the connector's read-only path with a
 * short timeout, and, only when the admin allowed sample values, a few rows of the most relevant
 * tables with their values cut short. A draft is never executed beyond EXPLAIN.
 */
import { DomainError, notFound } from '../../core/errors.js';
import type { ConnectorPools } from '../connections/pools.js';
import type { ConnectionsRepo } from '../connections/ports.js';
import type { SchemaTable } from '../plugins/connector.js';
import { compileTemplate, parseSqlTemplate, placeholderNames } from '../queries/sql-template.js';
import type { AssistantConnections } from './assistant-service.js';
import type { Dialect } from './sql-check.js';

/** EXPLAIN's and each sample read's time limit. */
export const EXPLAIN_TIMEOUT_MS = 5000;
const SAMPLE_ROWS = 3;
const SAMPLE_CHARS = 40;

export function createConnectionContext(deps: {
  connections: Pick<ConnectionsRepo, 'find'>;
  pools: ConnectorPools;
  schema(connectionId: string): Promise<{ refreshedAt: Date | null; tables: SchemaTable[] }>;
  refreshSchema(connectionId: string): Promise<{ tables: SchemaTable[] }>;
}): AssistantConnections {
  const connectionOf = async (id: string) => {
    const c = await deps.connections.find(id);
    if (!c) throw new DomainError('validation.failed', 'No such connection', { errors: [{ field: 'connection_id', code: 'validation.invalid', message: 'is not a connection' }] });
    return c;
  };

  async function run(connectionId: string, sql: string, signal: AbortSignal, limit: number) {
    const connection = await connectionOf(connectionId);
    const { connector, session } = deps.pools.sessionFor(connection);
    const template = parseSqlTemplate(sql);
    const values = Object.fromEntries(placeholderNames(template).map((n) => [n, null]));
    const statement = compileTemplate(template, (n) => connector.placeholder(n), values);
    const stream = await session.execute(statement, { signal: AbortSignal.any([signal, AbortSignal.timeout(EXPLAIN_TIMEOUT_MS + 1000)]), timeoutMs: EXPLAIN_TIMEOUT_MS, batchSize: limit });
    const rows: unknown[][] = [];
    for await (const batch of stream.batches) {
      rows.push(...batch);
      if (rows.length >= limit) break;
    }
    return { columns: stream.columns.map((c) => c.name), rows: rows.slice(0, limit) };
  }

  return {
    async dialectOf(connectionId): Promise<Dialect> {
      return deps.pools.sessionFor(await connectionOf(connectionId)).connector.sqlDialect;
    },
    async tables(connectionId) {
      const cached = await deps.schema(connectionId).catch((err: unknown) => {
        if (err instanceof DomainError && err.code === 'not_found') throw notFound('connection');
        throw err;
      });
      if (cached.refreshedAt !== null) return cached.tables;
      return (await deps.refreshSchema(connectionId)).tables;
    },
    async explain(connectionId, sql, signal) {
      try {
        await run(connectionId, `EXPLAIN ${sql.trim().replace(/;\s*$/, '')}`, signal, 1000);
        return { ok: true };
      } catch (err) {
        return { ok: false, message: String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 500) };
      }
    },
    async samples(connectionId, tables, signal) {
      const { connector } = deps.pools.sessionFor(await connectionOf(connectionId));
      const quote = (name: string) => connector.quoteIdentifier(name);
      const parts: string[] = [];
      for (const t of tables) {
        try {
          const { columns, rows } = await run(connectionId, `select * from ${quote(t.schema)}.${quote(t.name)} limit ${SAMPLE_ROWS}`, signal, SAMPLE_ROWS);
          const cut = (v: unknown) => (v === null ? 'null' : String(v).slice(0, SAMPLE_CHARS));
          parts.push(`${t.schema}.${t.name}: ${columns.join(' | ')}`, ...rows.map((r) => `  ${r.map(cut).join(' | ')}`));
        } catch {
          // A table it may not read: no samples of it.
        }
      }
      return parts.join('\n');
    },
  };
}
