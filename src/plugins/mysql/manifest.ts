import type { SettingsLimits } from '../../domain/plugins/connection-rules.js';
import { sqlManifest } from '../shared/sql-manifest.js';

export const MYSQL_NAME_LIMITS: SettingsLimits = { maxDatabaseLength: 64, maxUsernameLength: 80 };

export const mysqlManifest = sqlManifest({
  id: 'mysql',
  version: '1.0.0',
  defaultPort: 3306,
  nameLimits: MYSQL_NAME_LIMITS,
  options: {
    charset: { type: 'string', enum: ['utf8mb4', 'utf8mb3', 'latin1', 'ascii'], default: 'utf8mb4' },
    timezone: { type: 'string', pattern: '^(UTC|[+-](0\\d|1[0-4]):[0-5]\\d)$', default: '+00:00' },
  },
  capabilities: ['schema_introspection', 'cancel', 'streaming', 'read_only', 'statement_timeout', 'tls'],
  translations: {
    en: {
      name: 'MySQL / MariaDB',
      'settings.host.help': 'Host name or IP address of the MySQL or MariaDB server.',
      'settings.port.help': 'TCP port of the server (usually 3306).',
      'settings.database.help': 'Default database (schema) for unqualified table names.',
      'settings.options.help': 'Further MySQL settings for the session.',
      'settings.options.charset.label': 'Character set',
      'settings.options.charset.help': 'Character set of the connection (default utf8mb4).',
      'settings.options.timezone.label': 'Session time zone',
      'settings.options.timezone.help': 'Time zone in which TIMESTAMP values are read, UTC or an offset such as +02:00 (default +00:00).',
    },
    de: {
      name: 'MySQL / MariaDB',
      'settings.host.help': 'Hostname oder IP-Adresse des MySQL- oder MariaDB-Servers.',
      'settings.port.help': 'TCP-Port des Servers (meist 3306).',
      'settings.database.help': 'Standarddatenbank (Schema) für unqualifizierte Tabellennamen.',
      'settings.options.help': 'Weitere MySQL-Einstellungen für die Sitzung.',
      'settings.options.charset.label': 'Zeichensatz',
      'settings.options.charset.help': 'Zeichensatz der Verbindung (Standard utf8mb4).',
      'settings.options.timezone.label': 'Zeitzone der Sitzung',
      'settings.options.timezone.help': 'Zeitzone, in der TIMESTAMP-Werte gelesen werden, UTC oder ein Versatz wie +02:00 (Standard +00:00).',
    },
  },
});
