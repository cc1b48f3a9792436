/**
 * The PostgreSQL connector (postgres.js): its dialect for the shared SQL connector skeleton
 * (src/plugins/shared/sql-connector.ts). See execute.ts for how read-only is enforced.
 */
import { textProblem } from '../../domain/plugins/connection-rules.js';
import { sqlConnector, type OptionRule, type SqlDialect } from '../shared/sql-connector.js';
import { postgresErrors } from './errors.js';
import { postgresDenyList } from './forbidden.js';
import { POSTGRES_NAME_LIMITS, postgresManifest } from './manifest.js';
import { openPostgresPool } from './session.js';
import { SEARCH_PATH } from './client.js';

/** A text option: no URL or file parameter in it, at most `max` characters, then `more`. */
const textOption = (max: number, more: (value: string, field: string) => string | undefined): OptionRule => (value, field) => {
  const why = textProblem(value, max);
  const message = why ? `${field} ${why}` : more(value, field);
  return message ? { code: 'validation.format', message } : undefined;
};

export const postgresDialect: SqlDialect = {
  manifest: postgresManifest,
  placeholder: (n) => `$${n}`,
  sqlDialect: 'postgresql',
  quoteIdentifier: (name) => `"${name.replace(/"/g, '""')}"`,
  nameLimits: POSTGRES_NAME_LIMITS,
  options: {
    application_name: textOption(63, (value, field) => (/^[\x20-\x7e]*$/.test(value) ? undefined : `${field} must be printable ASCII`)),
    search_path: textOption(1024, (value, field) => (SEARCH_PATH.test(value) ? undefined : `${field} must be a comma-separated list of schema names`)),
  },
  deniedFunctions: postgresDenyList,
  errors: postgresErrors,
  openPool: openPostgresPool,
};

export const postgresConnector = sqlConnector(postgresDialect);
