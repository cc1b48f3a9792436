/**
 * mysql2 options of one session, from discrete fields (never a connection URI built from user
 * input). The client never honours a server's LOCAL INFILE request: the LOCAL_FILES capability is
 * not announced (flags -LOCAL_FILES, so the server refuses LOAD DATA LOCAL itself) and no
 * infileStreamFactory is given (mysql2 ≥ 2 then answers such a request with an empty file and an
 * error instead of reading anything). multipleStatements stays off.
 */
import type mysql from 'mysql2';
import { onFirstUse } from '../../core/on-first-use.js';
import type { ConnectionConfig, ConnectorLimits } from '../../domain/plugins/connector.js';

/** The driver, loaded the first time a MySQL/MariaDB connection is opened. */
const driver = onFirstUse<typeof mysql>('mysql2');

const CHARSETS: Record<string, string> = {
  utf8mb4: 'UTF8MB4_UNICODE_CI',
  utf8mb3: 'UTF8_GENERAL_CI',
  latin1: 'LATIN1_SWEDISH_CI',
  ascii: 'ASCII_GENERAL_CI',
};

export type SslOptions = false | { ca?: string; rejectUnauthorized: boolean; verifyIdentity?: boolean };

/** libpq's meaning of each mode (prefer falls back to plain text when the server has no TLS: see session.ts). */
export function sslOptions(config: ConnectionConfig, withTls: boolean): SslOptions {
  const ca = config.sslCa ?? undefined;
  if (config.sslMode === 'disable' || !withTls) return false;
  switch (config.sslMode) {
    case 'prefer': return { rejectUnauthorized: false };
    case 'require': return ca ? { ca, rejectUnauthorized: true, verifyIdentity: false } : { rejectUnauthorized: false };
    case 'verify-ca': return { ...(ca ? { ca } : {}), rejectUnauthorized: true, verifyIdentity: false };
    case 'verify-full': return { ...(ca ? { ca } : {}), rejectUnauthorized: true, verifyIdentity: true };
  }
}

/** The session time_zone: UTC or an offset (validated by the connector). */
export function sessionTimeZone(config: ConnectionConfig): string {
  const tz = config.options.timezone;
  return typeof tz === 'string' && tz !== 'UTC' ? tz : '+00:00';
}

/** Options of one connection (the pool's and the separate one that sends KILL QUERY). */
export function connectionOptions(config: ConnectionConfig, limits: ConnectorLimits, withTls: boolean): mysql.ConnectionOptions {
  const charset = typeof config.options.charset === 'string' ? CHARSETS[config.options.charset] : undefined;
  return {
    host: config.host,
    port: config.port,
    user: config.username,
    password: config.password ?? '',
    database: config.database,
    connectTimeout: Math.max(100, limits.connectTimeoutMs),
    ssl: sslOptions(config, withTls) || undefined,
    flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS'],
    multipleStatements: false,
    infileStreamFactory: undefined,
    enableCleartextPlugin: false,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    dateStrings: true,
    jsonStrings: true,
    rowsAsArray: true,
    timezone: 'Z',
    charset: charset ?? CHARSETS.utf8mb4,
    enableKeepAlive: true,
    maxPreparedStatements: 64,
    connectAttributes: { program_name: 'herald' },
  } as mysql.ConnectionOptions;
}

export function createPool(config: ConnectionConfig, limits: ConnectorLimits, withTls: boolean): mysql.Pool {
  return driver().createPool({
    ...connectionOptions(config, limits, withTls),
    connectionLimit: Math.max(1, limits.poolSize),
    maxIdle: Math.max(1, limits.poolSize),
    idleTimeout: 60_000,
    waitForConnections: true,
    queueLimit: 0,
  });
}

export function createSingleConnection(config: ConnectionConfig, limits: ConnectorLimits, withTls: boolean): mysql.Connection {
  return driver().createConnection(connectionOptions(config, limits, withTls));
}

const ALLOWED_FIRST_WORDS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'SHOW', 'EXPLAIN', 'DESCRIBE', 'DESC']);

/**
 * The statement's first keyword, after whitespace, comments and opening parentheses; null when
 * it starts with an executable comment (`/*! … *\/`, `/*M! … *\/`, which the server runs) or
 * an unterminated comment.
 */
export function firstKeyword(sql: string): string | null {
  let i = 0;
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i]!)) i += 1;
    if (sql.startsWith('--', i) && (i + 2 >= sql.length || /\s/.test(sql[i + 2]!))) {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (sql[i] === '#') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (sql.startsWith('/*', i)) {
      if (sql.startsWith('/*!', i) || sql.startsWith('/*M!', i)) return null;
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) return null;
      i = end + 2;
    } else if (sql[i] === '(') {
      i += 1;
    } else break;
  }
  const m = /^[A-Za-z]+/.exec(sql.slice(i, i + 16));
  return m ? m[0].toUpperCase() : null;
}

/**
 * MySQL and MariaDB run DDL and table maintenance (CREATE, DROP, OPTIMIZE/REPAIR/ANALYZE TABLE, …)
 * even inside START TRANSACTION READ ONLY, after an implicit commit; so only statements that
 * begin with a reading keyword are let through to the read-only transaction.
 */
export function isReadingStatement(sql: string): boolean {
  const word = firstKeyword(sql);
  return word !== null && ALLOWED_FIRST_WORDS.has(word);
}
