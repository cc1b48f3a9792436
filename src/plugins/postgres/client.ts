/**
 * postgres.js options of one session, from discrete fields (never a connection string built from
 * user input), with every option postgres.js would otherwise take from PG* environment variables
 * given explicitly, so the service's own environment cannot leak into a user's connection.
 */
import { isIP, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import postgres from 'postgres';
import type { ConnectionConfig, ConnectorLimits } from '../../domain/plugins/connector.js';

export type PgSql = postgres.Sql;
export type Runner = Pick<PgSql, 'unsafe'>;
export type Param = string | number | boolean | null;

/**
 * A statement through the extended protocol (Parse/Bind/Execute), never the simple one: Parse
 * takes exactly one statement, so `select 1; commit; insert …` fails instead of running three.
 * postgres.js's unsafe() picks the simple protocol whenever there are no parameters unless told
 * `simple: false` (its `prepare: true` alone does not change that), hence this one door.
 */
export function extended(conn: Runner, text: string, params: readonly Param[] = []) {
  return conn.unsafe(text, params as Param[], { simple: false, prepare: false } as postgres.UnsafeQueryOptions);
}

type SslOption = false | 'prefer' | 'require' | (ConnectionOptions & { host?: string; servername?: string; checkServerIdentity?: () => undefined });

/** libpq's meaning of each mode; require with a CA verifies the chain like verify-ca (as libpq does). */
export function sslOption(config: ConnectionConfig): SslOption {
  const ca = config.sslCa ?? undefined;
  const servername = isIP(config.host) ? undefined : config.host;
  switch (config.sslMode) {
    case 'disable': return false;
    case 'prefer': return 'prefer';
    case 'require':
      return ca ? { ca, rejectUnauthorized: true, checkServerIdentity: () => undefined } : 'require';
    case 'verify-ca':
      return { ...(ca ? { ca } : {}), rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { ...(ca ? { ca } : {}), rejectUnauthorized: true, host: config.host, ...(servername ? { servername } : {}) };
  }
}

/**
 * Parameters sent in the startup packet: only those PgBouncer passes on in transaction pooling
 * (it tracks them per client and sets them on whichever server connection serves it), so a
 * connection through PgBouncer needs no `ignore_startup_parameters`. The rest of what values.ts
 * decodes is set in each transaction (transactionSettings).
 */
export function sessionParameters(config: ConnectionConfig): Record<string, string> {
  return {
    application_name: typeof config.options.application_name === 'string' ? config.options.application_name : 'herald',
    DateStyle: 'ISO, YMD',
    TimeZone: 'UTC',
    client_encoding: 'UTF8',
  };
}

/** A search_path option: schema names, plain or double-quoted, separated by commas. */
export const SEARCH_PATH = /^\s*("[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)(\s*,\s*("[^"]+"|[A-Za-z_][A-Za-z0-9_$]*))*\s*$/;

/**
 * The settings every read-only transaction starts with (SET LOCAL, after BEGIN): the formats
 * values.ts decodes and the connection's search_path. Per transaction, not per session, so they
 * hold on whatever server connection a pooler in transaction mode (PgBouncer) gives it, and end
 * with the transaction. search_path is checked by the manifest's pattern (schema names, quoted or
 * plain, separated by commas) before it gets here.
 */
export function transactionSettings(config: ConnectionConfig): string {
  const sets = [
    "set local DateStyle = 'ISO, YMD'", "set local IntervalStyle = 'iso_8601'", "set local TimeZone = 'UTC'",
    "set local bytea_output = 'hex'", 'set local extra_float_digits = 1',
  ];
  const path = config.options.search_path;
  if (typeof path === 'string') {
    // Checked when saved (index.ts); checked again here, as it goes into the statement's text.
    if (!SEARCH_PATH.test(path)) throw new Error('options.search_path is not a comma-separated list of schema names');
    sets.push(`set local search_path to ${path}`);
  }
  return sets.join('; ');
}

/**
 * A postgres.js client. `socket`, when given, opens each socket (pool.ts uses it to allow one per
 * connection attempt); it must connect to config.host and config.port.
 */
export function createClient(config: ConnectionConfig, limits: ConnectorLimits, socket?: () => Socket): PgSql {
  const password = config.password ?? '';
  return postgres({
    host: [config.host],
    port: [config.port],
    database: config.database,
    username: config.username,
    // A function, so that an empty password never falls back to PGPASSWORD.
    password: () => password,
    ssl: sslOption(config),
    max: Math.max(1, limits.poolSize),
    connect_timeout: Math.max(0.1, limits.connectTimeoutMs / 1000),
    idle_timeout: 60,
    max_lifetime: 30 * 60,
    prepare: false,
    // true (the default): with false, a reserve() on a fresh pool never resolves (postgres.js 3.4).
    fetch_types: true,
    debug: false,
    keep_alive: 60,
    max_pipeline: 100,
    backoff: (retries: number) => Math.min(0.5 * 2 ** retries, 10),
    target_session_attrs: undefined,
    sslnegotiation: null,
    publications: 'alltables',
    connection: sessionParameters(config),
    ...(socket ? { socket } : {}),
    onnotice: () => undefined,
    onparameter: () => undefined,
    transform: { undefined: null },
  } as unknown as postgres.Options<Record<string, postgres.PostgresType>>);
}
