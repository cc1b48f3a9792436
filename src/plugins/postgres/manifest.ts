import type { SettingsLimits } from '../../domain/plugins/connection-rules.js';
import { sqlManifest } from '../shared/sql-manifest.js';

export const POSTGRES_NAME_LIMITS: SettingsLimits = { maxDatabaseLength: 63, maxUsernameLength: 63 };

export const postgresManifest = sqlManifest({
  id: 'postgres',
  version: '1.0.0',
  defaultPort: 5432,
  nameLimits: POSTGRES_NAME_LIMITS,
  options: {
    application_name: { type: 'string', maxLength: 63, pattern: '^[\\x20-\\x7e]*$', default: 'herald' },
    search_path: {
      type: 'string', maxLength: 1024,
      pattern: '^\\s*("[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)(\\s*,\\s*("[^"]+"|[A-Za-z_][A-Za-z0-9_$]*))*\\s*$',
    },
  },
  capabilities: ['schema_introspection', 'cancel', 'streaming', 'read_only', 'statement_timeout', 'tls'],
  translations: {
    en: {
      name: 'PostgreSQL',
      'settings.host.help': 'Host name or IP address of the PostgreSQL server.',
      'settings.port.help': 'TCP port of the server (usually 5432).',
      'settings.database.help': 'Name of the database to read from.',
      'settings.options.help': 'Further PostgreSQL settings for the session.',
      'settings.options.application_name.label': 'Application name',
      'settings.options.application_name.help': 'Shown in pg_stat_activity (default herald).',
      'settings.options.search_path.label': 'Schema search path',
      'settings.options.search_path.help': 'Comma-separated schemas searched for unqualified table names, e.g. sales, public.',
    },
    de: {
      name: 'PostgreSQL',
      'settings.host.help': 'Hostname oder IP-Adresse des PostgreSQL-Servers.',
      'settings.port.help': 'TCP-Port des Servers (meist 5432).',
      'settings.database.help': 'Name der Datenbank, aus der gelesen wird.',
      'settings.options.help': 'Weitere PostgreSQL-Einstellungen für die Sitzung.',
      'settings.options.application_name.label': 'Anwendungsname',
      'settings.options.application_name.help': 'Erscheint in pg_stat_activity (Standard herald).',
      'settings.options.search_path.label': 'Schema-Suchpfad',
      'settings.options.search_path.help': 'Kommagetrennte Schemas, in denen unqualifizierte Tabellennamen gesucht werden, z. B. sales, public.',
    },
  },
});
