/**
 * Connector plugins: manifests (schema, secrets, capabilities, en/de translations), the registry,
 * and validate(): settings can never make the service read its own files or reach anything but
 * one database server.
 */
import { DomainError } from '../../src/core/errors.js';
import type { ConnectionConfig, Connector } from '../../src/domain/plugins/connector.js';
import { isReadingStatement } from '../../src/plugins/mysql/client.js';
import { mysqlConnector } from '../../src/plugins/mysql/index.js';
import { postgresConnector } from '../../src/plugins/postgres/index.js';
import { builtInPlugins, createPluginRegistry } from '../../src/plugins/registry.js';

const PEM = `-----BEGIN CERTIFICATE-----
MIIBszCCAVmgAwIBAgIUQm0ZK2rF4v2x0tB3U7l3n0p4c2swCgYIKoZIzj0EAwIw
LzEtMCsGA1UEAwwkaGVyYWxkLXRlc3QtY2EuZXhhbXBsZS5pbnZhbGlkLWNhLmNh
MB4XDTI0MDEwMTAwMDAwMFoXDTM0MDEwMTAwMDAwMFowLzEtMCsGA1UEAwwkaGVy
YWxkLXRlc3QtY2EuZXhhbXBsZS5pbnZhbGlkLWNhLmNhMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAE7vQ1nq1VbHq3yZ2v5pUe1zL6pJx2YwqQ3n1b9cA9m8eS1mB2
-----END CERTIFICATE-----
`;

const base: ConnectionConfig = {
  host: 'db.example.com', port: 5432, database: 'sales', username: 'reader', password: 'pw',
  sslMode: 'verify-full', sslCa: null, options: {},
};

function problems(connector: Connector, config: Partial<ConnectionConfig>): Array<{ field: string; code: string }> {
  try {
    connector.validate({ ...base, ...config });
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('validation.failed');
    return ((err as DomainError).extras.errors ?? []).map(({ field, code }) => ({ field, code }));
  }
}

const connectors: Array<[string, Connector]> = [['postgres', postgresConnector], ['mysql', mysqlConnector]];

describe.each(connectors)('%s validate()', (_id, connector) => {
  test('accepts plain settings, IP addresses and PEM content', () => {
    expect(problems(connector, {})).toEqual([]);
    expect(problems(connector, { host: '10.1.2.3' })).toEqual([]);
    expect(problems(connector, { host: '::1' })).toEqual([]);
    expect(problems(connector, { sslCa: PEM })).toEqual([]);
    expect(problems(connector, { sslCa: PEM + PEM })).toEqual([]);
    expect(problems(connector, { database: 'customer_service' })).toEqual([]);
  });

  test.each([
    ['a URL as host', { host: 'postgres://reader@db.example.com/sales?sslrootcert=/etc/ssl/key.pem' }, 'host'],
    ['a key=value string as host', { host: 'host=db sslkey=/root/.ssh/id_rsa' }, 'host'],
    ['a socket path as host', { host: '/var/run/postgresql' }, 'host'],
    ['a host list', { host: 'a.example.com,b.example.com' }, 'host'],
    ['host:port', { host: 'db.example.com:6432' }, 'host'],
    ['sslrootcert in the database', { database: 'sales sslrootcert=/etc/passwd' }, 'database'],
    ['sslkey in the database', { database: 'sales?sslkey=/root/key.pem' }, 'database'],
    ['passfile in the user name', { username: 'reader passfile=/root/.pgpass' }, 'username'],
    ['service in the database', { database: 'service=prod' }, 'database'],
    ['sslcert in the database', { database: 'x&sslcert=/tmp/c.pem' }, 'database'],
    ['sslpassword in the database', { database: 'x sslpassword=secret' }, 'database'],
    ['a URL as database', { database: 'postgresql://other/db' }, 'database'],
    ['ssl_ca as a path', { sslCa: '/etc/ssl/certs/ca-certificates.crt' }, 'ssl_ca'],
    ['ssl_ca as a private key', { sslCa: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n' }, 'ssl_ca'],
    ['ssl_ca with a path after the certificate', { sslCa: `${PEM}/etc/ssl/private/key.pem` }, 'ssl_ca'],
    ['port 0', { port: 0 }, 'port'],
    ['port 65536', { port: 65536 }, 'port'],
    ['an unknown ssl_mode', { sslMode: 'allow' as never }, 'ssl_mode'],
    ['an empty host', { host: '' }, 'host'],
    ['an empty database', { database: '' }, 'database'],
    ['a control character', { username: 'reader\u0000' }, 'username'],
  ])('refuses %s', (_what, config, field) => {
    expect(problems(connector, config).map((p) => p.field)).toContain(field);
  });

  test('refuses unknown options', () => {
    expect(problems(connector, { options: { sslrootcert: '/etc/x' } })).toEqual([{ field: 'options.sslrootcert', code: 'validation.unknown_field' }]);
  });

  test('open() validates too', () => {
    expect(() => connector.open({ ...base, host: 'x?sslkey=/k' }, { poolSize: 1, connectTimeoutMs: 1000 })).toThrow(DomainError);
  });
});

test('postgres options: application_name and search_path, checked', () => {
  expect(problems(postgresConnector, { options: { application_name: 'reports', search_path: 'sales, "Public Data", public' } })).toEqual([]);
  expect(problems(postgresConnector, { options: { search_path: "public; set role x" } })).toEqual([{ field: 'options.search_path', code: 'validation.format' }]);
  expect(problems(postgresConnector, { options: { application_name: 'x sslkey=/k' } })).toEqual([{ field: 'options.application_name', code: 'validation.format' }]);
  expect(problems(postgresConnector, { options: { application_name: 5 } })).toEqual([{ field: 'options.application_name', code: 'validation.type' }]);
});

test('mysql options: charset and timezone, checked', () => {
  expect(problems(mysqlConnector, { options: { charset: 'latin1', timezone: '+02:00' } })).toEqual([]);
  expect(problems(mysqlConnector, { options: { charset: 'klingon' } })).toEqual([{ field: 'options.charset', code: 'validation.enum' }]);
  expect(problems(mysqlConnector, { options: { timezone: "+00:00'; DROP" } })).toEqual([{ field: 'options.timezone', code: 'validation.format' }]);
});

test('placeholders: $n for postgres, ? for mysql', () => {
  expect(postgresConnector.placeholder(3)).toBe('$3');
  expect(mysqlConnector.placeholder(3)).toBe('?');
});

test.each([
  ['SELECT 1', true], ['  (select 1)', true], ['with x as (select 1) select * from x', true],
  ['/* c */ SELECT 1', true], ['-- c\nSELECT 1', true], ['# c\nSHOW TABLES', true], ['EXPLAIN SELECT 1', true],
  ['VALUES (1)', true], ['TABLE t', true], ['DESCRIBE t', true],
  ['INSERT INTO t VALUES (1)', false], ['/*!50000 DROP TABLE t */', false], ['/*M!100000 DROP TABLE t */', false],
  ['/* unterminated SELECT 1', false], ['OPTIMIZE TABLE t', false], ['CALL p()', false], ['LOAD DATA LOCAL INFILE', false],
  ['--SELECT 1\nDROP TABLE t', false], ['', false],
])('MySQL statement gate: %j → %s', (sql, allowed) => {
  expect(isReadingStatement(sql)).toBe(allowed);
});

describe('registry and manifests', () => {
  const registry = createPluginRegistry();

  test('lists every built-in plugin and finds connectors by id', () => {
    expect(registry.list().map((m) => m.id)).toEqual(['postgres', 'mysql', 'webhook', 'email', 's3', 'slack', 'teams', 'openai', 'anthropic']);
    expect(registry.connector('postgres')).toBe(postgresConnector);
    expect(registry.connector('mysql')).toBe(mysqlConnector);
    expect(registry.connector('oracle')).toBeUndefined();
    expect(registry.connector('webhook')).toBeUndefined();
    expect(registry.channel('webhook')?.manifest.kind).toBe('channel');
    expect(registry.channel('postgres')).toBeUndefined();
    expect(registry.ai('anthropic')?.manifest.kind).toBe('ai');
    expect(registry.ai('webhook')).toBeUndefined();
  });

  test.each(builtInPlugins.filter((p) => p.manifest.kind !== 'connector').map((p) => [p.manifest.id, p] as const))('%s: channel or ai manifest is complete', (_id, plugin) => {
    const m = plugin.manifest;
    expect(m.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(m.settingsSchema).toMatchObject({ type: 'object', additionalProperties: false });
    const props = (m.settingsSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
    // Secrets are marked, and never have defaults (a default would be a shared secret).
    for (const [name, p] of Object.entries(props)) if (p['x-secret']) expect([name, p.default]).toEqual([name, undefined]);
    for (const locale of ['en', 'de']) {
      const t = m.translations[locale]!;
      expect(t.name).toEqual(expect.any(String));
      for (const field of Object.keys(props)) {
        expect([field, typeof t[`settings.${field}.label`], typeof t[`settings.${field}.help`]]).toEqual([field, 'string', 'string']);
      }
      for (const capability of m.capabilities) expect(t[`capabilities.${capability}`]).toEqual(expect.any(String));
    }
    expect(Object.keys(m.translations.de!).sort()).toEqual(Object.keys(m.translations.en!).sort());
  });

  test('refuses two plugins with one id', () => {
    expect(() => createPluginRegistry([postgresConnector, postgresConnector])).toThrow(/postgres/);
  });

  test.each(builtInPlugins.filter((p) => p.manifest.kind === 'connector').map((p) => [p.manifest.id, p] as const))('%s: manifest is complete', (_id, plugin) => {
    const m = plugin.manifest;
    expect(m.kind).toBe('connector');
    expect(m.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(m.capabilities).toEqual(expect.arrayContaining(['schema_introspection', 'cancel']));
    const props = (m.settingsSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
    expect(Object.keys(props)).toEqual(['host', 'port', 'database', 'username', 'password', 'ssl_mode', 'ssl_ca', 'options']);
    expect(props.password!['x-secret']).toBe(true);
    expect(Object.entries(props).filter(([, p]) => p['x-secret']).map(([k]) => k)).toEqual(['password']);
    expect(props.port).toMatchObject({ minimum: 1, maximum: 65535 });
    expect(props.options).toMatchObject({ type: 'object', additionalProperties: false });
    const optionKeys = Object.keys((props.options!.properties ?? {}) as object);
    expect(optionKeys.length).toBeGreaterThan(0);
    for (const locale of ['en', 'de']) {
      const t = m.translations[locale]!;
      expect(t.name).toEqual(expect.any(String));
      for (const field of [...Object.keys(props), ...optionKeys.map((k) => `options.${k}`)]) {
        expect(t[`settings.${field}.label`]).toEqual(expect.any(String));
        expect(t[`settings.${field}.help`]).toEqual(expect.any(String));
      }
      for (const capability of m.capabilities) expect(t[`capabilities.${capability}`]).toEqual(expect.any(String));
    }
    expect(Object.keys(m.translations.de!).sort()).toEqual(Object.keys(m.translations.en!).sort());
  });
});
