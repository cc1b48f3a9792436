/**
 * The MySQL / MariaDB connector (mysql2). See execute.ts for how read-only is enforced and
 * client.ts for why the client never sends a local file.
 */
import { validationFailed, type FieldProblem } from '../../core/errors.js';
import { checkConnectionSettings } from '../../domain/plugins/connection-rules.js';
import type { ConnectionConfig, Connector } from '../../domain/plugins/connector.js';
import { MYSQL_OPTION_NAMES, mysqlManifest } from './manifest.js';
import { openMysqlSession } from './session.js';

const CHARSETS = ['utf8mb4', 'utf8mb3', 'latin1', 'ascii'];
const TIME_ZONE = /^(UTC|[+-](0\d|1[0-4]):[0-5]\d)$/;

function optionProblems(options: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(options ?? {})) {
    const field = `options.${key}`;
    if (!(MYSQL_OPTION_NAMES as readonly string[]).includes(key)) {
      problems.push({ field, code: 'validation.unknown_field', message: `${key} is not an option of the mysql connector` });
    } else if (value === undefined || value === null) {
      continue;
    } else if (typeof value !== 'string') {
      problems.push({ field, code: 'validation.type', message: `${field} must be a string` });
    } else if (key === 'charset' && !CHARSETS.includes(value)) {
      problems.push({ field, code: 'validation.enum', message: `${field} must be one of ${CHARSETS.join(', ')}` });
    } else if (key === 'timezone' && !TIME_ZONE.test(value)) {
      problems.push({ field, code: 'validation.format', message: `${field} must be UTC or an offset such as +02:00` });
    }
  }
  return problems;
}

export const mysqlConnector: Connector = {
  manifest: mysqlManifest,
  placeholder: () => '?',
  validate(config: ConnectionConfig) {
    const problems = [
      ...checkConnectionSettings(config, { maxDatabaseLength: 64, maxUsernameLength: 80 }),
      ...optionProblems(config.options),
    ];
    if (problems.length > 0) throw validationFailed(problems);
  },
  open(config, limits) {
    mysqlConnector.validate(config);
    return openMysqlSession(config, limits);
  },
};
