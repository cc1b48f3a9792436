/**
 * The SQL connector skeleton (src/plugins/shared/sql-connector.ts) on a tiny fake dialect whose
 * "database" is rows in memory: a new connector supplies only its dialect (manifest, options,
 * deny list, driver, error reading) and gets the skeleton's behaviour: settings validation, the
 * connection test, schema browsing, rows streamed in order in batches with one fetch ahead, the
 * checks after the last row, leaving early (a row limit) or aborting cancels on the "server",
 * forbidden functions refused before a connection is taken, and driver errors mapped to the
 * catalogue's codes.
 */
import { DomainError } from '../../src/core/errors.js';
import type { CellValue, ConnectionConfig, ExecuteOptions } from '../../src/domain/plugins/connector.js';
import { denyList } from '../../src/plugins/shared/sql-calls.js';
import { sqlConnector, type CatalogueRow, type SqlConnection, type SqlDialect } from '../../src/plugins/shared/sql-connector.js';
import { notReadOnly, type SqlErrorDialect } from '../../src/plugins/shared/sql-errors.js';
import type { SqlRun } from '../../src/plugins/shared/sql-stream.js';
import { mysqlDialect } from '../../src/plugins/mysql/index.js';
import { postgresDialect } from '../../src/plugins/postgres/index.js';

/** The fake driver's errors: the server's (a code and words) or the socket's (a Node code). */
class FakeServerError extends Error {
  constructor(readonly code: string, message: string) { super(message); }
}
class FakeSocketError extends Error {
  constructor(readonly code: string) { super(`socket ${code}`); }
}

const fakeErrors: SqlErrorDialect = {
  read: (err) => (err instanceof FakeServerError
    ? { server: true, description: `${err.message} (code ${err.code})`, loginRefused: err.code === 'LOGIN' }
    : { server: false, code: (err as { code?: string }).code, message: (err as Error).message }),
  networkReasons: {},
  isTlsFailure: () => false,
  statementRefusal: (err, description) => ((err as FakeServerError).code === 'TIMEOUT' ? new DomainError('query.timeout', `Too slow (${description})`) : undefined),
};

/** What the fake server did, in order. */
type Event = string;

interface FakeDb {
  tables: Record<string, { columns: string[]; rows: CellValue[][] }>;
  events: Event[];
  /** Connections taken and not given back. */
  inUse: number;
  /** The next acquire fails with this error. */
  refuseNext?: unknown;
}

/**
 * The statement language of the fake: `select <table>` (all its rows), `select <table> then fail`
 * (an error after the first batch), `select <table> then lock` (the check after the last row
 * refuses it), `sleep` (one batch that never comes until cancelled), `slow` (a time limit error).
 */
function fakeRun(db: FakeDb, sql: string, options: { batchSize: number }, release: () => void): SqlRun {
  const m = /^select (\w+)( then (fail|lock))?$/.exec(sql.trim());
  let offset = 0;
  let stopSleeping: () => void = () => undefined;
  const table = m ? db.tables[m[1]!] : undefined;
  return {
    get columns() { return (table?.columns ?? ['pause']).map((name) => ({ name, type: 'text' })); },
    async open() {
      db.events.push('begin read only');
      if (sql === 'slow') throw new FakeServerError('TIMEOUT', 'statement timeout');
      if (sql !== 'sleep' && !table) throw new FakeServerError('SYNTAX', `cannot read ${sql}`);
    },
    async fetch() {
      if (sql === 'sleep') {
        db.events.push('fetch');
        await new Promise<void>((resolve) => { stopSleeping = resolve; });
        return null;
      }
      const batch = table!.rows.slice(offset, offset + options.batchSize);
      if (batch.length > 0) db.events.push(`fetch ${offset}`);
      const failing = offset > 0 && m?.[3] === 'fail';
      offset += batch.length;
      await new Promise((resolve) => setImmediate(resolve));
      if (failing) throw new FakeServerError('DISK', 'the disk is on fire');
      return batch.length > 0 ? batch : null;
    },
    async cancel() { db.events.push('cancel'); stopSleeping(); },
    async check() {
      db.events.push('check');
      if (m?.[3] === 'lock') throw notReadOnly('this statement took a lock');
    },
    async close() { db.events.push('rollback'); release(); },
  };
}

function fakeDialect(db: FakeDb): SqlDialect {
  return {
    manifest: {
      id: 'fakesql', version: '1.0.0', kind: 'connector',
      settingsSchema: { type: 'object', properties: { options: { type: 'object', properties: { region: { type: 'string' } } } } },
      capabilities: ['streaming'], translations: { en: { name: 'Fake SQL' } },
    },
    placeholder: (n) => `:${n}`,
    sqlDialect: 'postgresql',
    quoteIdentifier: (name) => `"${name}"`,
    nameLimits: { maxDatabaseLength: 16, maxUsernameLength: 16 },
    options: { region: (value, field) => (/^[a-z]+$/.test(value) ? undefined : { code: 'validation.format', message: `${field} must be lowercase letters` }) },
    deniedFunctions: denyList('postgres', [{ names: ['steal_secrets', 'shutdown_*'], why: 'is not for reports' }]),
    errors: fakeErrors,
    openPool: () => ({
      async acquire(): Promise<SqlConnection> {
        await new Promise((resolve) => setImmediate(resolve));
        if (db.refuseNext) { const err = db.refuseNext; db.refuseNext = undefined; throw err; }
        db.inUse += 1;
        let released = false;
        const release = (): void => { if (!released) { released = true; db.inUse -= 1; } };
        return {
          serverVersion: async () => 'Fake SQL 1.0',
          ping: async () => undefined,
          catalogue: async (): Promise<CatalogueRow[]> => Object.entries(db.tables).flatMap(([name, t]) => t.columns.map((column) => ({
            schema: 'main', table: name, kind: name.endsWith('_view') ? 'view' as const : 'table' as const, column, type: 'text', nullable: true,
          }))),
          run: (statement, options) => fakeRun(db, statement.sql, options, release),
          release,
        };
      },
      end: async () => { db.events.push('pool closed'); },
    }),
  };
}

const numbers = (n: number): CellValue[][] => Array.from({ length: n }, (_, i) => [i + 1, `row ${i + 1}`]);

function setUp() {
  const db: FakeDb = {
    tables: { numbers: { columns: ['n', 'label'], rows: numbers(7) }, empty: { columns: ['n'], rows: [] }, numbers_view: { columns: ['n'], rows: [[1]] } },
    events: [],
    inUse: 0,
  };
  const connector = sqlConnector(fakeDialect(db));
  const config: ConnectionConfig = {
    host: 'db.example', port: 4000, database: 'shop', username: 'reader', password: null, sslMode: 'disable', sslCa: null, options: {},
  };
  const session = connector.open(config, { poolSize: 2, connectTimeoutMs: 1000 });
  return { db, connector, config, session };
}

const run = (batchSize = 3, signal = new AbortController().signal): ExecuteOptions => ({ signal, timeoutMs: 1000, batchSize });
const statement = (sql: string) => ({ sql, params: [] });

async function collect(batches: AsyncIterable<CellValue[][]>): Promise<CellValue[][][]> {
  const all: CellValue[][][] = [];
  for await (const batch of batches) all.push(batch);
  return all;
}

describe('a connector made of a dialect and the skeleton', () => {
  test('validates settings with the shared connection rules and the dialect\'s option rules', () => {
    const { connector, config } = setUp();
    expect(connector.manifest.id).toBe('fakesql');
    expect(connector.placeholder(2)).toBe(':2');
    expect(() => connector.validate(config)).not.toThrow();
    const problems = (change: Partial<ConnectionConfig>) => {
      try { connector.validate({ ...config, ...change }); return []; } catch (err) {
        return ((err as DomainError).extras.errors ?? []).map(({ field, code }) => ({ field, code }));
      }
    };
    expect(problems({ host: 'postgres://evil/x' })).toEqual([{ field: 'host', code: 'validation.format' }]);
    expect(problems({ database: 'a_database_name_too_long' })).toEqual([{ field: 'database', code: 'validation.range' }]);
    expect(problems({ options: { region: 'EU-1' } })).toEqual([{ field: 'options.region', code: 'validation.format' }]);
    expect(problems({ options: { region: 5 } })).toEqual([{ field: 'options.region', code: 'validation.type' }]);
    expect(problems({ options: { sslkey: 'x' } })).toEqual([{ field: 'options.sslkey', code: 'validation.unknown_field' }]);
    expect(problems({ options: { region: null } })).toEqual([]);
    expect(() => connector.open({ ...config, host: '' }, { poolSize: 1, connectTimeoutMs: 1000 })).toThrow(DomainError);
  });

  test('tests the connection and browses the schema, giving each connection back', async () => {
    const { db, session } = setUp();
    const tested = await session.test(new AbortController().signal);
    expect(tested).toEqual({ serverVersion: 'Fake SQL 1.0', roundTripMs: expect.any(Number) });
    const schema = await session.introspect(new AbortController().signal);
    expect(schema.tables.map((t) => [t.name, t.kind, t.columns.map((c) => c.name)])).toEqual([
      ['numbers', 'table', ['n', 'label']], ['empty', 'table', ['n']], ['numbers_view', 'view', ['n']],
    ]);
    expect(db.inUse).toBe(0);
  });

  test('streams every row in order, in batches of batchSize, one fetch ahead, then checks and rolls back', async () => {
    const { db, session } = setUp();
    let connected = 0;
    const stream = await session.execute(statement('select numbers'), { ...run(3), onConnected: () => { connected += 1; } });
    expect(connected).toBe(1);
    expect(stream.columns).toEqual([{ name: 'n', type: 'text' }, { name: 'label', type: 'text' }]);
    // The first batch is in before execute answers; the second is on its way.
    await new Promise((resolve) => setImmediate(resolve));
    expect(db.events).toEqual(['begin read only', 'fetch 0', 'fetch 3']);
    const batches = await collect(stream.batches);
    expect(batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(batches.flat()).toEqual(numbers(7));
    expect(db.events).toEqual(['begin read only', 'fetch 0', 'fetch 3', 'fetch 6', 'check', 'rollback']);
    expect(db.inUse).toBe(0);
  });

  test('a row limit: leaving the loop cancels the statement and rolls back, fetching nothing more', async () => {
    const { db, session } = setUp();
    const stream = await session.execute(statement('select numbers'), run(2));
    const rows: CellValue[][] = [];
    for await (const batch of stream.batches) {
      rows.push(...batch.slice(0, 3 - rows.length));
      if (rows.length === 3) break;
    }
    expect(rows).toEqual(numbers(3));
    // The third fetch is the one ahead of the consumer; nothing after it.
    expect(db.events).toEqual(['begin read only', 'fetch 0', 'fetch 2', 'fetch 4', 'cancel', 'rollback']);
    expect(db.inUse).toBe(0);
  });

  test('an empty result answers at once, with the checks done; a refusal of the checks rejects', async () => {
    const { db, session } = setUp();
    const stream = await session.execute(statement('select empty'), run());
    expect(await collect(stream.batches)).toEqual([]);
    expect(db.events).toEqual(['begin read only', 'check', 'rollback']);
    const locked = await session.execute(statement('select numbers then lock'), run(10));
    await expect(collect(locked.batches)).rejects.toMatchObject({ code: 'query.not_read_only' });
    expect(db.inUse).toBe(0);
  });

  test('refuses an empty statement and a forbidden function before a connection is taken', async () => {
    const { db, session } = setUp();
    await expect(session.execute(statement('  '), run())).rejects.toMatchObject({ code: 'query.failed' });
    await expect(session.execute(statement('select numbers where "Steal_Secrets"(1)'), run())).rejects.toMatchObject({
      code: 'query.forbidden_function', message: expect.stringContaining('steal_secrets is not for reports'),
    });
    await expect(session.execute(statement('select shutdown_now ()'), run())).rejects.toMatchObject({ code: 'query.forbidden_function' });
    // Inside a string literal it is not a call.
    await expect(session.execute(statement("select 'steal_secrets()'"), run())).rejects.toMatchObject({ code: 'query.failed' });
    expect(db.events).toEqual(['begin read only', 'rollback']);
    expect(db.inUse).toBe(0);
  });

  test('aborting the signal cancels the running statement and rejects with its reason', async () => {
    const { db, session } = setUp();
    const controller = new AbortController();
    const pending = session.execute(statement('sleep'), run(3, controller.signal));
    while (!db.events.includes('fetch')) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('stopped by the test'));
    await expect(pending).rejects.toThrow('stopped by the test');
    expect(db.events).toEqual(['begin read only', 'fetch', 'cancel', 'rollback']);
    expect(db.inUse).toBe(0);
  });

  test('maps driver errors to the catalogue\'s codes', async () => {
    const { db, session } = setUp();
    db.refuseNext = new FakeServerError('LOGIN', 'no such user');
    await expect(session.test(new AbortController().signal)).rejects.toMatchObject({
      code: 'connection.auth_failed', message: 'The server at db.example:4000 refused the login: no such user (code LOGIN)',
    });
    db.refuseNext = new FakeSocketError('ECONNREFUSED');
    await expect(session.execute(statement('select numbers'), run())).rejects.toMatchObject({
      code: 'connection.unreachable', message: 'Cannot reach the database at db.example:4000: the connection was refused',
    });
    await expect(session.execute(statement('select nothing'), run())).rejects.toMatchObject({ code: 'query.failed', message: 'cannot read select nothing (code SYNTAX)' });
    await expect(session.execute(statement('slow'), run())).rejects.toMatchObject({ code: 'query.timeout' });
    const failing = await session.execute(statement('select numbers then fail'), run(3));
    await expect(collect(failing.batches)).rejects.toMatchObject({ code: 'query.failed', message: 'the disk is on fire (code DISK)' });
    expect(db.inUse).toBe(0);
  });

  test('a closed session refuses', async () => {
    const { db, session } = setUp();
    await session.close();
    await session.close();
    expect(db.events).toEqual(['pool closed']);
    await expect(session.execute(statement('select numbers'), run())).rejects.toMatchObject({ code: 'connection.unreachable' });
  });
});

test.each([postgresDialect, mysqlDialect].map((d) => [d.manifest.id, d] as const))('%s: the dialect has a rule for each option of its manifest, and no other', (_id, dialect) => {
  const options = (dialect.manifest.settingsSchema.properties as Record<string, { properties: object }>).options!.properties;
  expect(Object.keys(dialect.options).sort()).toEqual(Object.keys(options).sort());
});
