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
}

export function createDb(url: string, options: StoreOptions = {}) {
  const sql = postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => undefined,
    connection: {
      application_name: options.applicationName ?? 'herald',
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      ...(options.lockTimeoutMs ? { idle_in_transaction_session_timeout: options.lockTimeoutMs, lock_timeout: options.lockTimeoutMs } : {}),
    },
  });
  const db = drizzle(sql, { schema });
  return { sql, db };
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
