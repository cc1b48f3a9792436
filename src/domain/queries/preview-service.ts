/**
 * Preview: runs saved or unsaved SQL read-only with a row cap and a short timeout, and answers
 * the first rows. Past the timeout the statement is cancelled on the database (the connector
 * honours the signal) and the answer is query.timeout.
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, notFound, validationFailed } from '../../core/errors.js';
import type { CellValue, ResultColumn } from '../plugins/connector.js';
import type { ConnectionsRepo } from '../connections/ports.js';
import type { ConnectorPools } from '../connections/pools.js';
import { bindValues, type GivenValues, type QueryParameter } from './parameters.js';
import { compileTemplate, parseSqlTemplate, placeholderNames } from './sql-template.js';
import type { QueriesRepo } from './ports.js';

export const PREVIEW_DEFAULT_LIMIT = 500;
export const PREVIEW_DEFAULT_TIMEOUT_SECONDS = 15;
/** Time the database gets past the statement timeout to report it before the service cancels itself. */
const CANCEL_GRACE_MS = 2000;

export interface PreviewInput {
  queryId?: string | undefined;
  connectionId?: string | undefined;
  sql?: string | undefined;
  parameters?: GivenValues | undefined;
  limit?: number | undefined;
  timeoutSeconds?: number | undefined;
}

export interface Preview {
  columns: ResultColumn[];
  rows: CellValue[][];
  rowCount: number;
  truncated: boolean;
  elapsedMs: number;
}

export function createPreviewService(deps: {
  queries: Pick<QueriesRepo, 'find'>; connections: Pick<ConnectionsRepo, 'find'>; pools: ConnectorPools;
  /** Keeps the preview's time limit. */
  clock: Clock;
}) {
  /** The SQL, its connection and its declarations, from a saved query or from the request. */
  const source = async (input: PreviewInput): Promise<{ sql: string; connectionId: string; declared: QueryParameter[] | undefined }> => {
    if (input.queryId) {
      if (input.sql !== undefined || input.connectionId !== undefined) {
        throw validationFailed([{ field: 'query_id', code: 'validation.invalid', message: 'give either query_id, or connection_id and sql' }]);
      }
      const q = await deps.queries.find(input.queryId);
      if (!q) throw notFound('query');
      return { sql: q.sql, connectionId: q.connectionId, declared: q.parameters };
    }
    const missing = [
      ...(input.connectionId === undefined ? [{ field: 'connection_id', code: 'validation.required' as const, message: 'is required without query_id' }] : []),
      ...(input.sql === undefined ? [{ field: 'sql', code: 'validation.required' as const, message: 'is required without query_id' }] : []),
    ];
    if (missing.length > 0) throw validationFailed(missing);
    return { sql: input.sql!, connectionId: input.connectionId!, declared: undefined };
  };

  return {
    /** `signal` aborts when the caller goes away (or the process drains): the statement is cancelled then too. */
    async preview(input: PreviewInput, signal?: AbortSignal): Promise<Preview> {
      const limit = input.limit ?? PREVIEW_DEFAULT_LIMIT;
      const timeoutMs = (input.timeoutSeconds ?? PREVIEW_DEFAULT_TIMEOUT_SECONDS) * 1000;
      const { sql, connectionId, declared } = await source(input);
      const template = parseSqlTemplate(sql);
      const values = bindValues(declared, input.parameters ?? {}, placeholderNames(template));
      const connection = await deps.connections.find(connectionId);
      if (!connection) {
        if (input.queryId) throw notFound('connection');
        throw validationFailed([{ field: 'connection_id', code: 'validation.invalid', message: 'is not a connection' }]);
      }
      const { connector, session } = deps.pools.sessionFor(connection);
      const statement = compileTemplate(template, (n) => connector.placeholder(n), values);
      const controller = new AbortController();
      const guard = deps.clock.timer(timeoutMs + CANCEL_GRACE_MS, () => controller.abort(new DomainError('query.timeout', `The query took longer than ${timeoutMs / 1000} s`)));
      const started = performance.now();
      try {
        const stop = signal ? AbortSignal.any([controller.signal, signal]) : controller.signal;
        const stream = await session.execute(statement, { signal: stop, timeoutMs, batchSize: Math.min(limit + 1, 1000) });
        const rows: CellValue[][] = [];
        let truncated = false;
        for await (const batch of stream.batches) {
          for (const row of batch) {
            if (rows.length === limit) { truncated = true; break; }
            rows.push(row);
          }
          if (truncated) break; // leaving the loop cancels the rest on the database
        }
        return { columns: stream.columns, rows, rowCount: rows.length, truncated, elapsedMs: Math.round((performance.now() - started) * 10) / 10 };
      } catch (err) {
        if (controller.signal.aborted && !(err instanceof DomainError)) throw controller.signal.reason as DomainError;
        throw err;
      } finally {
        guard.cancel();
      }
    },
  };
}

export type PreviewService = ReturnType<typeof createPreviewService>;
