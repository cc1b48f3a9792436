import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import * as schema from './schema.js';

export type Sql = postgres.Sql;
export type Db = ReturnType<typeof createDb>['db'];
/** A transaction or the database: repository functions take either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;

export interface StoreOptions {
  max?: number;
  applicationName?: string;
  /** Longest a statement may run (or wait for a lock) before the store cancels it; none if unset. */
  statementTimeoutMs?: number;
  /**
   * Longest a transaction may sit idle (idle_in_transaction_session_timeout) and a statement wait
   * for a lock (lock_timeout): a process frozen inside a transaction (SIGSTOP, a stuck event loop)
   * loses its connection, and its row locks return to the others, within this time.
   */
  lockTimeoutMs?: number;
  /**
   * Named prepared statements (default true). With false none at all, not even for the queries
   * that ask for one (`{ prepare: true }`: postgres.js honours the client's setting first), as
   * PgBouncer in transaction pooling needs before 1.21 (SVC_DATABASE_PREPARE).
   */
  prepare?: boolean;
}

export function createDb(url: string, options: StoreOptions = {}) {
  const sql = postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => undefined,
    prepare: options.prepare ?? true,
    connection: {
      application_name: options.applicationName ?? 'herald',
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      ...(options.lockTimeoutMs ? { idle_in_transaction_session_timeout: options.lockTimeoutMs, lock_timeout: options.lockTimeoutMs } : {}),
    },
  });
  const db = drizzle(preparing(sql), { schema });
  return { sql, db };
}

/**
 * Most parameters a drizzle statement may have and still be prepared: above it the text is most
 * likely one of a family that grows with its input (`in ($1, …, $n)`, a bulk insert's rows), and
 * each member would be one more named statement kept by the connection and its server process.
 */
export const PREPARED_PARAMETERS_MAX = 32;

/**
 * The store's client as drizzle is given it: every statement drizzle sends is a named prepared
 * statement (unless it has more than PREPARED_PARAMETERS_MAX parameters, or the client's own
 * `prepare` is false, which postgres.js honours first). drizzle asks postgres.js for one only for
 * `.prepare(name)`; every other statement went unnamed, and postgres.js sends an unnamed statement
 * with parameters in two round trips (Parse and Describe to learn the parameters' types, then Bind
 * and Execute). Prepared, it is described once per connection and then sent in one. The same goes
 * for the transactions and savepoints drizzle opens, whose clients postgres.js makes.
 */
export function preparing<T extends postgres.Sql | postgres.TransactionSql>(client: T): T {
  type Scoped = (inner: postgres.TransactionSql) => unknown;
  /** `begin(options?, fn)` and `savepoint(name?, fn)`: the scope's own client wrapped too. */
  const scoped = (open: (...args: unknown[]) => unknown) => (...args: unknown[]) => {
    const fn = args.pop() as Scoped;
    return open(...args, (inner: postgres.TransactionSql) => fn(preparing(inner)));
  };
  return new Proxy(client, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      if (key === 'unsafe') {
        return (text: string, args: unknown[] | object = [], options: { prepare?: boolean } = {}) => {
          // postgres.js also takes unsafe(text, options).
          if (!Array.isArray(args)) return (value as postgres.Sql['unsafe']).call(target, text, [], { ...args, prepare: true });
          return (value as postgres.Sql['unsafe']).call(target, text, args as postgres.ParameterOrJSON<never>[],
            args.length > PREPARED_PARAMETERS_MAX ? options : { ...options, prepare: true });
        };
      }
      if (key === 'begin' || key === 'savepoint') return scoped((value as (...a: unknown[]) => unknown).bind(target));
      return value;
    },
  });
}

/**
 * A savepoint inside the caller's transaction: a statement the database may refuse (a foreign
 * key, a unique key) fails alone and the transaction goes on. Repositories never open a
 * transaction of their own (the unit of work does, src/infra/db/unit-of-work.ts); this is the one
 * nested scope they may use, to turn such a refusal into an answer.
 */
export function inSavepoint<T>(tx: Tx, work: (sp: Tx) => Promise<T>): Promise<T> {
  return tx.transaction(work);
}

/** What the store's connections were asked to apply at start-up, as PostgreSQL shows them ('30s'). */
const LIMITS = ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout'] as const;

/**
 * The limits a connection of the store does not apply although Herald asked for them: a pooler
 * (PgBouncer) cannot pass start-up parameters on to the server connections it shares, so they
 * must be set on the role or database instead. Empty when every limit holds (or none was asked).
 */
export async function missingLimits(sql: Sql, options: Pick<StoreOptions, 'statementTimeoutMs' | 'lockTimeoutMs'>): Promise<Array<{ name: string; want: string; got: string }>> {
  const want: Record<(typeof LIMITS)[number], number | undefined> = {
    statement_timeout: options.statementTimeoutMs,
    lock_timeout: options.lockTimeoutMs,
    idle_in_transaction_session_timeout: options.lockTimeoutMs,
  };
  const [row] = await sql.unsafe<Array<Record<string, string>>>(`select ${LIMITS.map((n) => `current_setting('${n}') as ${n}`).join(', ')}`);
  const ms = (v: string): number => {
    const m = /^(\d+)\s*(ms|s|min|h|d)?$/.exec(v.trim());
    if (!m) return Number.NaN;
    const unit = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms'];
    return Number(m[1]) * unit;
  };
  return LIMITS.flatMap((name) => {
    const w = want[name];
    const got = row?.[name] ?? '';
    return w && ms(got) !== w ? [{ name, want: `${w}ms`, got }] : [];
  });
}

/** The store's clock: the one time every process of a fleet agrees on. */
export async function storeTime(sql: Sql): Promise<Date> {
  const [row] = await sql<Array<{ now: Date | string }>>`select clock_timestamp() as now`;
  return new Date(row!.now);
}

/** True when the store answers within the time limit. */
export async function storeAnswers(sql: Sql, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
    const probe = sql`select 1 as ok`.then(() => true as const);
    return await Promise.race([probe, timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Postgres error code of a failed statement, if any (23505 = unique violation). */
export function pgErrorCode(err: unknown): string | undefined {
  const cause = (err as { cause?: unknown })?.cause ?? err;
  const code = (cause as { code?: unknown })?.code;
  return typeof code === 'string' ? code : undefined;
}

export function pgConstraint(err: unknown): string | undefined {
  const cause = (err as { cause?: unknown })?.cause ?? err;
  const name = (cause as { constraint_name?: unknown })?.constraint_name;
  return typeof name === 'string' ? name : undefined;
}
