/**
 * The manifest of a SQL connector: the settings every one of them takes (host, port, database,
 * username, password, ssl_mode, ssl_ca, options) with their labels in every locale, the
 * capabilities' labels, and what the connector adds (its port, name limits, options and the texts
 * that name its server).
 */
import { MAX_SSL_CA_LENGTH, SSL_MODES, type SettingsLimits } from '../../domain/plugins/connection-rules.js';
import type { JsonSchema, PluginManifest } from '../../domain/plugins/plugin.js';

type Texts = Readonly<Record<string, string>>;

/** The labels every SQL connector shares, by locale. */
const SHARED: Readonly<Record<'en' | 'de', Texts>> = {
  en: {
    'settings.host.label': 'Host',
    'settings.port.label': 'Port',
    'settings.database.label': 'Database',
    'settings.username.label': 'User name',
    'settings.username.help': 'Database user. Give it SELECT rights only: Herald runs read-only statements, and a read-only user is the second line of defence.',
    'settings.password.label': 'Password',
    'settings.password.help': 'Stored encrypted and never shown again.',
    'settings.ssl_mode.label': 'TLS mode',
    'settings.ssl_mode.help': 'disable: no TLS; prefer: TLS when the server offers it; require: always TLS; verify-ca: TLS with a certificate signed by the CA; verify-full: as verify-ca and the certificate must name the host.',
    'settings.ssl_ca.label': 'CA certificate',
    'settings.ssl_ca.help': 'PEM content (-----BEGIN CERTIFICATE----- …) of the CA that signed the server certificate. Paste the content, not a file path.',
    'settings.options.label': 'Options',
    'capabilities.schema_introspection': 'Lists tables, views and columns',
    'capabilities.cancel': 'Cancels running statements on the server',
    'capabilities.streaming': 'Streams large results in batches',
    'capabilities.read_only': 'Runs every statement in a read-only transaction',
    'capabilities.statement_timeout': 'Enforces a time limit on the server',
    'capabilities.tls': 'Encrypted connections (TLS)',
  },
  de: {
    'settings.host.label': 'Host',
    'settings.port.label': 'Port',
    'settings.database.label': 'Datenbank',
    'settings.username.label': 'Benutzername',
    'settings.username.help': 'Datenbankbenutzer. Geben Sie ihm nur SELECT-Rechte: Herald führt nur lesende Anweisungen aus, und ein Nur-Lese-Benutzer ist die zweite Verteidigungslinie.',
    'settings.password.label': 'Passwort',
    'settings.password.help': 'Wird verschlüsselt gespeichert und nie wieder angezeigt.',
    'settings.ssl_mode.label': 'TLS-Modus',
    'settings.ssl_mode.help': 'disable: kein TLS; prefer: TLS, wenn der Server es anbietet; require: immer TLS; verify-ca: TLS mit einem von der CA signierten Zertifikat; verify-full: wie verify-ca, und das Zertifikat muss den Host nennen.',
    'settings.ssl_ca.label': 'CA-Zertifikat',
    'settings.ssl_ca.help': 'PEM-Inhalt (-----BEGIN CERTIFICATE----- …) der CA, die das Serverzertifikat signiert hat. Fügen Sie den Inhalt ein, keinen Dateipfad.',
    'settings.options.label': 'Optionen',
    'capabilities.schema_introspection': 'Listet Tabellen, Sichten und Spalten auf',
    'capabilities.cancel': 'Bricht laufende Anweisungen auf dem Server ab',
    'capabilities.streaming': 'Liefert große Ergebnisse in Portionen',
    'capabilities.read_only': 'Führt jede Anweisung in einer Nur-Lese-Transaktion aus',
    'capabilities.statement_timeout': 'Setzt ein Zeitlimit auf dem Server durch',
    'capabilities.tls': 'Verschlüsselte Verbindungen (TLS)',
  },
};

/** The settings' texts in the order the manifest lists them (the options' own come after). */
const ORDER = [
  'name', 'settings.host.label', 'settings.host.help', 'settings.port.label', 'settings.port.help',
  'settings.database.label', 'settings.database.help', 'settings.username.label', 'settings.username.help',
  'settings.password.label', 'settings.password.help', 'settings.ssl_mode.label', 'settings.ssl_mode.help',
  'settings.ssl_ca.label', 'settings.ssl_ca.help', 'settings.options.label', 'settings.options.help',
];

export interface SqlManifestSpec {
  id: string;
  version: string;
  defaultPort: number;
  nameLimits: SettingsLimits;
  /** JSON Schema of each option (all strings). */
  options: Readonly<Record<string, JsonSchema>>;
  capabilities: string[];
  /**
   * Per locale (en and de): what names the server, "name", "settings.host.help",
   * "settings.port.help", "settings.database.help", "settings.options.help", and the label and
   * help of each option ("settings.options.<name>.label" / ".help"); any shared text may be
   * replaced.
   */
  translations: Readonly<Record<'en' | 'de', Texts>>;
}

function texts(own: Texts, shared: Texts, capabilities: readonly string[]): Record<string, string> {
  const all: Texts = { ...shared, ...own };
  const out: Record<string, string> = {};
  for (const key of ORDER) if (all[key] !== undefined) out[key] = all[key];
  for (const [key, text] of Object.entries(own)) if (!(key in out) && !key.startsWith('capabilities.')) out[key] = text;
  for (const capability of capabilities) {
    const key = `capabilities.${capability}`;
    if (all[key] !== undefined) out[key] = all[key];
  }
  return out;
}

export function sqlManifest(spec: SqlManifestSpec): PluginManifest & { kind: 'connector' } {
  return {
    id: spec.id,
    version: spec.version,
    kind: 'connector',
    settingsSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['host', 'database', 'username'],
      properties: {
        host: { type: 'string', minLength: 1, maxLength: 253, description: 'Host name or IP address' },
        port: { type: 'integer', minimum: 1, maximum: 65535, default: spec.defaultPort },
        database: { type: 'string', minLength: 1, maxLength: spec.nameLimits.maxDatabaseLength },
        username: { type: 'string', minLength: 1, maxLength: spec.nameLimits.maxUsernameLength },
        password: { type: 'string', maxLength: 1024, format: 'password', writeOnly: true, 'x-secret': true },
        ssl_mode: { type: 'string', enum: [...SSL_MODES], default: 'prefer' },
        ssl_ca: { type: 'string', maxLength: MAX_SSL_CA_LENGTH, description: 'PEM content of the CA certificate(s)' },
        options: { type: 'object', additionalProperties: false, properties: { ...spec.options } },
      },
    },
    capabilities: spec.capabilities,
    translations: {
      en: texts(spec.translations.en, SHARED.en, spec.capabilities),
      de: texts(spec.translations.de, SHARED.de, spec.capabilities),
    },
  };
}
