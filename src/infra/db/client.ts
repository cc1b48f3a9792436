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
    },
  });
  const db = drizzle(sql, { schema });
  return { sql, db };
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
