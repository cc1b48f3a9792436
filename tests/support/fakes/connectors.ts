/**
 * A connector plugin whose statements the test scripts: rows in batches, a database error, or a
 * statement that runs until its signal is aborted (as a cancelled statement stops on the
 * database). With the pools and the plugin registry that hand it out.
 */
import { DomainError, type ProblemCode } from '../../../src/core/errors.js';
import type { ConnectorPools } from '../../../src/domain/connections/pools.js';
import type { PluginManifest, PluginRegistry } from '../../../src/domain/plugins/plugin.js';
import type {
  CellValue, Connector, ConnectorSession, ExecuteOptions, NdjsonStream, ResultColumn, RowStream, Statement,
} from '../../../src/domain/plugins/connector.js';

/**
 * What a statement answers: its rows, or an error, or a wait until the signal is aborted; or its
 * rows as NDJSON lines (ndjsonRows), which only executeNdjson gives.
 */
export type Script = (statement: Statement, options: ExecuteOptions) => Promise<RowStream | NdjsonStream>;

/** Columns and rows, streamed in batches of `batchSize`. */
export const rows = (columns: ResultColumn[], all: CellValue[][], batchSize = 1000): Script => async (_s, options) => {
  options.onConnected?.();
  return {
    columns,
    batches: (async function* () {
      for (let i = 0; i < all.length; i += batchSize) yield all.slice(i, i + batchSize);
    })(),
  };
};

/** Columns and rows as NDJSON lines (each row's JSON.stringify and a newline), `batchSize` rows a batch. */
export const ndjsonRows = (columns: ResultColumn[], all: CellValue[][], batchSize = 1000): Script => async (_s, options) => {
  options.onConnected?.();
  return {
    columns,
    ndjson: (async function* () {
      for (let i = 0; i < all.length; i += batchSize) {
        const batch = all.slice(i, i + batchSize);
        yield { rows: batch.length, lines: Buffer.from(batch.map((row) => `${JSON.stringify(row)}\n`).join('')) };
      }
    })(),
  };
};

/** The database refuses the statement. */
export const fails = (message: string, code: ProblemCode = 'query.failed'): Script => async () => { throw new DomainError(code, message); };

/**
 * The statement runs until its signal is aborted, then fails as a cancelled statement does.
 * `started` resolves once it is on the database.
 */
export function runsUntilAborted(): Script & { started: Promise<void>; stopped: Promise<void> } {
  let started!: () => void;
  let stopped!: () => void;
  const script = (async (_s: Statement, options: ExecuteOptions): Promise<RowStream> => {
    options.onConnected?.();
    started();
    await new Promise<void>((resolve) => {
      if (options.signal.aborted) resolve();
      else options.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    stopped();
    throw new DomainError('query.failed', 'canceling statement due to user request');
  }) as Script & { started: Promise<void>; stopped: Promise<void> };
  script.started = new Promise<void>((resolve) => { started = resolve; });
  script.stopped = new Promise<void>((resolve) => { stopped = resolve; });
  return script;
}

export const fakeConnectorManifest: PluginManifest & { kind: 'connector' } = {
  id: 'fake', version: '1.0.0', kind: 'connector',
  settingsSchema: {
    type: 'object', required: ['host', 'database', 'username'],
    properties: { host: { type: 'string' }, port: { type: 'integer', default: 5999 }, database: { type: 'string' }, username: { type: 'string' } },
  },
  capabilities: ['cancel', 'streaming'], translations: { en: { name: 'Fake' }, de: { name: 'Attrappe' } },
};

export interface FakeConnector extends Connector {
  /** The next statements' answers, in order; the last one stays. */
  script: Script;
  /** Every statement executed, with the time limit it was given, and whether as NDJSON lines. */
  executed: Array<{ sql: string; params: Statement['params']; timeoutMs: number; ndjson?: true }>;
  opened: number;
  closed: number;
}

export function fakeConnector(script: Script = rows([{ name: 'one', type: 'int4' }], [[1]])): FakeConnector {
  const connector: FakeConnector = {
    manifest: fakeConnectorManifest,
    sqlDialect: 'postgresql',
    quoteIdentifier: (name) => `"${name}"`,
    script,
    executed: [],
    opened: 0,
    closed: 0,
    placeholder: (n) => `$${n}`,
    validate: () => undefined,
    open(): ConnectorSession {
      connector.opened += 1;
      return {
        test: async () => ({ serverVersion: 'fake 1.0', roundTripMs: 0.1 }),
        introspect: async () => ({ tables: [{ schema: 'public', name: 'sales', kind: 'table', columns: [{ name: 'id', type: 'int4', nullable: false }] }] }),
        execute: async (statement, options) => {
          connector.executed.push({ sql: statement.sql, params: statement.params, timeoutMs: options.timeoutMs });
          const answer = await connector.script(statement, options);
          if ('ndjson' in answer) throw new Error('an NDJSON script answers executeNdjson only');
          return answer;
        },
        executeNdjson: async (statement, options) => {
          connector.executed.push({ sql: statement.sql, params: statement.params, timeoutMs: options.timeoutMs, ndjson: true });
          return connector.script(statement, options);
        },
        close: async () => { connector.closed += 1; },
      };
    },
  };
  return connector;
}

/** The plugin registry with these connectors (and no channels). */
export function fakePlugins(...connectors: Connector[]): PluginRegistry<Connector> {
  return {
    list: () => connectors.map((c) => c.manifest),
    connector: (id) => connectors.find((c) => c.manifest.id === id),
    channel: () => undefined,
    ai: () => undefined,
  };
}

/** Pools that open one session per connection on the connector of its type; `dropped` lists what was closed. */
export function fakePools(plugins: PluginRegistry<Connector>): ConnectorPools & { dropped: string[] } {
  const open = new Map<string, { connector: Connector; session: ConnectorSession }>();
  const dropped: string[] = [];
  return {
    dropped,
    sessionFor(connection) {
      const held = open.get(connection.id);
      if (held) return held;
      const connector = plugins.connector(connection.type);
      if (!connector) throw new Error(`connector plugin ${connection.type} is not installed`);
      const entry = {
        connector,
        session: connector.open({
          host: connection.host, port: connection.port, database: connection.database, username: connection.username,
          password: null, sslMode: connection.sslMode, sslCa: connection.sslCa, options: connection.options,
        }, { poolSize: 1, connectTimeoutMs: 1000 }),
      };
      open.set(connection.id, entry);
      return entry;
    },
    async drop(connectionId) {
      dropped.push(connectionId);
      const held = open.get(connectionId);
      open.delete(connectionId);
      await held?.session.close();
    },
    async closeAll() {
      for (const id of [...open.keys()]) await this.drop(id);
    },
  };
}
