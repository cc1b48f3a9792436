/**
 * The MySQL / MariaDB connector (mysql2): its dialect for the shared SQL connector skeleton
 * (src/plugins/shared/sql-connector.ts). See execute.ts for how read-only is enforced and
 * client.ts for why the client never sends a local file.
 */
import { sqlConnector, type SqlDialect } from '../shared/sql-connector.js';
import { mysqlErrors } from './errors.js';
import { refuseUnlessReading } from './execute.js';
import { mysqlDenyList } from './forbidden.js';
import { MYSQL_NAME_LIMITS, mysqlManifest } from './manifest.js';
import { openMysqlPool } from './session.js';

const CHARSETS = ['utf8mb4', 'utf8mb3', 'latin1', 'ascii'];
const TIME_ZONE = /^(UTC|[+-](0\d|1[0-4]):[0-5]\d)$/;

export const mysqlDialect: SqlDialect = {
  manifest: mysqlManifest,
  placeholder: () => '?',
  sqlDialect: 'mysql',
  quoteIdentifier: (name) => `\`${name.replace(/`/g, '``')}\``,
  nameLimits: MYSQL_NAME_LIMITS,
  options: {
    charset: (value, field) => (CHARSETS.includes(value) ? undefined : { code: 'validation.enum', message: `${field} must be one of ${CHARSETS.join(', ')}` }),
    timezone: (value, field) => (TIME_ZONE.test(value) ? undefined : { code: 'validation.format', message: `${field} must be UTC or an offset such as +02:00` }),
  },
  refuseText: refuseUnlessReading,
  deniedFunctions: mysqlDenyList,
  errors: mysqlErrors,
  openPool: openMysqlPool,
};

export const mysqlConnector = sqlConnector(mysqlDialect);
