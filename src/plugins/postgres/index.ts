/**
 * The PostgreSQL connector (postgres.js). See execute.ts for how read-only is enforced.
 */
import { validationFailed, type FieldProblem } from '../../core/errors.js';
import { checkConnectionSettings, textProblem } from '../../domain/plugins/connection-rules.js';
import type { ConnectionConfig, Connector } from '../../domain/plugins/connector.js';
import { POSTGRES_OPTION_NAMES, postgresManifest } from './manifest.js';
import { openPostgresSession } from './session.js';

const SEARCH_PATH = /^\s*("[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)(\s*,\s*("[^"]+"|[A-Za-z_][A-Za-z0-9_$]*))*\s*$/;

function optionProblems(options: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(options ?? {})) {
    const field = `options.${key}`;
    if (!(POSTGRES_OPTION_NAMES as readonly string[]).includes(key)) {
      problems.push({ field, code: 'validation.unknown_field', message: `${key} is not an option of the postgres connector` });
      continue;
    }
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') {
      problems.push({ field, code: 'validation.type', message: `${field} must be a string` });
      continue;
    }
    const why = textProblem(value, key === 'application_name' ? 63 : 1024);
    if (why) problems.push({ field, code: 'validation.format', message: `${field} ${why}` });
    else if (key === 'application_name' && !/^[\x20-\x7e]*$/.test(value)) {
      problems.push({ field, code: 'validation.format', message: `${field} must be printable ASCII` });
    } else if (key === 'search_path' && !SEARCH_PATH.test(value)) {
      problems.push({ field, code: 'validation.format', message: `${field} must be a comma-separated list of schema names` });
    }
  }
  return problems;
}

export const postgresConnector: Connector = {
  manifest: postgresManifest,
  placeholder: (n) => `$${n}`,
  validate(config: ConnectionConfig) {
    const problems = [
      ...checkConnectionSettings(config, { maxDatabaseLength: 63, maxUsernameLength: 63 }),
      ...optionProblems(config.options),
    ];
    if (problems.length > 0) throw validationFailed(problems);
  },
  open(config, limits) {
    postgresConnector.validate(config);
    return openPostgresSession(config, limits);
  },
};
