/**
 * Rules every database connector applies to a connection's settings before using them, so that
 * settings can never make the service read its own files or reach something other than one
 * database server: the host is one plain host name or IP address (no URL, no list, no socket
 * path), no field carries a libpq-style `key=value` that names a file (sslrootcert, sslkey,
 * passfile, service, …), and TLS material is PEM content, never a path. A connector calls
 * checkConnectionSettings in its validate() and adds its own rules (options).
 */
import type { FieldProblem } from '../../core/errors.js';
import type { ConnectionConfig, SslMode } from './connector.js';

export const SSL_MODES: readonly SslMode[] = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** Largest ssl_ca accepted (a CA bundle of a few dozen certificates). */
export const MAX_SSL_CA_LENGTH = 256 * 1024;

const HOST_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^\[?[0-9A-Fa-f:.]{2,45}\]?$/;
/** libpq / JDBC parameters that name a file or a service definition read from a file. */
const FILE_KEYWORDS = /(^|[\s?&;,])(sslrootcert|sslkey|sslcert|sslpassword|sslcrl|sslcrldir|passfile|service|servicefile|sslfactory|sslfactoryarg|socketfactory|localsocket|unix_socket|socketpath|socket)\s*=/i;
const URL_PREFIX = /^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n([A-Za-z0-9+/=\r\n]+?)-----END CERTIFICATE-----/g;

/** A plain host name (RFC 1123) or an IPv4/IPv6 address; undefined when fine, else why not. */
export function hostProblem(host: string): string | undefined {
  if (host.length === 0) return 'is required';
  if (host.length > 253) return 'is longer than 253 characters';
  if (URL_PREFIX.test(host)) return 'must be a host name or IP address, not a URL';
  if (/[\s/\\,=?&@;]/.test(host)) return 'must be one host name or IP address (no URL, path, list or parameters)';
  if (host.includes(':')) return IPV6.test(host) && (host.match(/:/g)?.length ?? 0) >= 2 ? undefined : 'must be a host name or IP address (give the port separately)';
  if (IPV4.test(host)) return undefined;
  const labels = host.replace(/\.$/, '').split('.');
  return labels.every((l) => HOST_LABEL.test(l)) ? undefined : 'is not a valid host name';
}

/** True when the text is one or more PEM certificates and nothing else. */
export function isPemCertificates(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_SSL_CA_LENGTH) return false;
  let rest = trimmed;
  let blocks = 0;
  for (const m of trimmed.matchAll(PEM_BLOCK)) {
    const der = Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64');
    // A certificate is a DER SEQUENCE (0x30) of some length.
    if (der.length < 64 || der[0] !== 0x30) return false;
    rest = rest.replace(m[0], '');
    blocks += 1;
  }
  return blocks > 0 && rest.trim().length === 0;
}

/** A text field (database, username, an option) that must not smuggle a URL or file parameter. */
export function textProblem(value: string, maxLength: number): string | undefined {
  if (value.length > maxLength) return `is longer than ${maxLength} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain control characters';
  if (URL_PREFIX.test(value)) return 'must not be a URL; give each setting in its own field';
  if (FILE_KEYWORDS.test(value)) return 'must not carry connection parameters that name files (sslrootcert, sslkey, passfile, service, …)';
  return undefined;
}

export interface SettingsLimits {
  /** Longest database and user name the server accepts (Postgres 63, MySQL 64 / 80). */
  maxDatabaseLength: number;
  maxUsernameLength: number;
}

/**
 * The shared checks of a connection's settings, as field problems with the API's field names
 * (host, port, database, username, ssl_mode, ssl_ca). Empty when everything is fine.
 */
export function checkConnectionSettings(config: ConnectionConfig, limits: SettingsLimits): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (field: string, code: FieldProblem['code'], message: string) => problems.push({ field, code, message });

  const host = hostProblem(config.host ?? '');
  if (host) add('host', config.host ? 'validation.format' : 'validation.required', `host ${host}`);
  if (!Number.isInteger(config.port) || config.port < 1 || config.port > 65535) {
    add('port', 'validation.range', 'port must be an integer from 1 to 65535');
  }
  for (const [field, value, max] of [
    ['database', config.database, limits.maxDatabaseLength],
    ['username', config.username, limits.maxUsernameLength],
  ] as const) {
    if (!value) { add(field, 'validation.required', `${field} is required`); continue; }
    const why = textProblem(value, max);
    if (why) add(field, why.startsWith('is longer') ? 'validation.range' : 'validation.format', `${field} ${why}`);
  }
  if (config.password !== null && config.password.includes('\u0000')) {
    add('password', 'validation.format', 'password must not contain NUL characters');
  }
  if (!SSL_MODES.includes(config.sslMode)) {
    add('ssl_mode', 'validation.enum', `ssl_mode must be one of ${SSL_MODES.join(', ')}`);
  }
  if (config.sslCa !== null && !isPemCertificates(config.sslCa)) {
    add('ssl_ca', 'validation.format', 'ssl_ca must be the PEM content of one or more CA certificates (-----BEGIN CERTIFICATE----- …), not a path or a key');
  }
  return problems;
}
