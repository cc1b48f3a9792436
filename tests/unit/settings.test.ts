import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createProcessLogger } from '../../src/infra/log/process-logger.js';
import {
  describeSettings, healthcheckAddress, KNOWN_SETTINGS, loadSettings, SettingsError, type ProcessRole,
} from '../../src/infra/config/settings.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
/** The two required settings; every test adds what it checks. */
const BASE = { SVC_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/herald', SVC_REDIS_URL: 'redis://127.0.0.1:6379' };

let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'herald-settings-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

function loadError(env: Record<string, string | undefined>): SettingsError {
  try {
    loadSettings(env, { cwd: dir });
  } catch (err) {
    if (err instanceof SettingsError) return err;
    throw err;
  }
  throw new Error('loadSettings accepted the settings');
}

describe('loadSettings', () => {
  it('applies the documented defaults', () => {
    const s = loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir });
    expect(s.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(s.publicUrl).toBe('http://127.0.0.1:8080');
    expect(s.roles).toEqual(['api', 'scheduler', 'worker']);
    expect(s.logLevel).toBe('info');
    expect(s.logFormat).toBe(process.stdout.isTTY ? 'text' : 'json');
    expect(s.dataDir).toBe(path.join(dir, '.data'));
    expect(s.metricsToken).toBeUndefined();
    expect(s.schedulerTickSeconds).toBe(10);
    expect(s.secretKey.equals(Buffer.alloc(32, 7))).toBe(true);
  });

  it('derives the public URL from SVC_LISTEN when SVC_PUBLIC_URL is unset', () => {
    const s = loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_LISTEN: '0.0.0.0:9191' }, { cwd: dir });
    expect(s.listen).toEqual({ host: '0.0.0.0', port: 9191 });
    expect(s.publicUrl).toBe('http://0.0.0.0:9191');
    const explicit = loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_PUBLIC_URL: 'https://herald.example.com/' }, { cwd: dir });
    expect(explicit.publicUrl).toBe('https://herald.example.com');
  });

  const bad: Array<[string, Record<string, string | undefined>]> = [
    ['SVC_DATABASE_URL', { SVC_DATABASE_URL: undefined }],
    ['SVC_REDIS_URL', { SVC_REDIS_URL: 'http://127.0.0.1:6379' }],
    ['SVC_LISTEN', { SVC_LISTEN: 'nope' }],
    ['SVC_ROLES', { SVC_ROLES: 'api,cook' }],
    ['SVC_LOG_FORMAT', { SVC_LOG_FORMAT: 'xml' }],
    ['SVC_SECRET_KEY', { SVC_SECRET_KEY: Buffer.alloc(16, 1).toString('base64') }],
    ['SVC_FOO', { SVC_FOO: '1' }],
    ['SVC_SCHEDULER_TICK_SECONDS', { SVC_SCHEDULER_TICK_SECONDS: '0' }],
  ];

  it.each(bad)('stops with a SettingsError naming %s', (name, change) => {
    const err = loadError({ ...BASE, SVC_DATA_DIR: path.join(dir, 'data'), ...change });
    expect(err.setting).toBe(name);
    expect(err.message.startsWith(`${name}:`)).toBe(true);
  });

  it.each(bad.filter(([name]) => name !== 'SVC_SECRET_KEY'))('leaves no key file behind when %s is bad', (_name, change) => {
    const dataDir = path.join(dir, 'data');
    loadError({ ...BASE, SVC_DATA_DIR: dataDir, ...change });
    expect(existsSync(path.join(dataDir, 'secret.key'))).toBe(false);
  });

  it('makes a key file (mode 0600) in SVC_DATA_DIR when SVC_SECRET_KEY is absent, and reuses it', () => {
    const dataDir = path.join(dir, 'state');
    const first = loadSettings({ ...BASE, SVC_DATA_DIR: dataDir }, { cwd: dir });
    const file = path.join(dataDir, 'secret.key');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.secretKey).toHaveLength(32);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first.secretKey)).toBe(true);

    const second = loadSettings({ ...BASE, SVC_DATA_DIR: dataDir }, { cwd: dir });
    expect(second.secretKey.equals(first.secretKey)).toBe(true);
  });

  it('prefers SVC_SECRET_KEY over a key file and then writes none', () => {
    const dataDir = path.join(dir, 'state');
    const s = loadSettings({ ...BASE, SVC_DATA_DIR: dataDir, SVC_SECRET_KEY: KEY }, { cwd: dir });
    expect(s.secretKey.toString('base64')).toBe(KEY);
    expect(existsSync(path.join(dataDir, 'secret.key'))).toBe(false);
  });
});

describe('SVC_CORS_ORIGINS', () => {
  it('is off (empty) by default and takes a comma list of exact origins', () => {
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir }).corsOrigins).toEqual([]);
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }, { cwd: dir }).corsOrigins)
      .toEqual(['https://app.example.com', 'http://localhost:5173']);
  });

  it.each(['*', 'app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'https://App.example.com', 'ftp://x.example.com', 'https://app.example.com:443'])(
    'refuses %s, naming the setting', (bad) => {
      expect(loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_CORS_ORIGINS: bad }).message).toMatch(/^SVC_CORS_ORIGINS: /);
    },
  );
});

describe('SVC_TRUST_PROXY', () => {
  it('trusts loopback proxies by default, and takes addresses, CIDRs, named ranges or none', () => {
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir }).trustProxy).toEqual(['loopback']);
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_TRUST_PROXY: '10.0.0.0/8, uniquelocal' }, { cwd: dir }).trustProxy)
      .toEqual(['10.0.0.0/8', 'uniquelocal']);
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_TRUST_PROXY: 'none' }, { cwd: dir }).trustProxy).toBe(false);
  });

  it('stops on anything else, naming the setting', () => {
    for (const bad of ['everyone', 'dead', '1.2', '10.0.0.0/33', '::1/129', '300.1.1.1', 'fe80::/64, beef']) {
      expect({ bad, message: loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_TRUST_PROXY: bad }).message }).toEqual({ bad, message: expect.stringMatching(/^SVC_TRUST_PROXY:/) });
    }
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_TRUST_PROXY: '192.0.2.7, 2001:db8::/32, ::1' }, { cwd: dir }).trustProxy)
      .toEqual(['192.0.2.7', '2001:db8::/32', '::1']);
  });
});

describe('SVC_DATABASE_DIRECT_URL and SVC_DATABASE_PREPARE', () => {
  it('default to SVC_DATABASE_URL and named prepared statements', () => {
    const s = loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir });
    expect(s.databaseDirectUrl).toBe(BASE.SVC_DATABASE_URL);
    expect(s.databasePrepare).toBe(true);
  });

  it('take a direct postgres URL beside a pooled one, and true or false', () => {
    const s = loadSettings({
      ...BASE, SVC_SECRET_KEY: KEY, SVC_DATABASE_URL: 'postgres://herald@pgbouncer:6432/herald',
      SVC_DATABASE_DIRECT_URL: 'postgresql://herald@db:5432/herald', SVC_DATABASE_PREPARE: 'false',
    }, { cwd: dir });
    expect(s.databaseUrl).toBe('postgres://herald@pgbouncer:6432/herald');
    expect(s.databaseDirectUrl).toBe('postgresql://herald@db:5432/herald');
    expect(s.databasePrepare).toBe(false);
  });

  it('stop on anything else, naming the setting', () => {
    expect(loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_DATABASE_DIRECT_URL: 'mysql://db/herald' }).message).toMatch(/^SVC_DATABASE_DIRECT_URL: must use postgres or postgresql/);
    expect(loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_DATABASE_DIRECT_URL: 'not a url' }).message).toMatch(/^SVC_DATABASE_DIRECT_URL: is not a valid URL/);
    for (const bad of ['yes', '0', 'TRUE', 'off']) {
      expect(loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_DATABASE_PREPARE: bad }).message).toBe('SVC_DATABASE_PREPARE: must be true or false');
    }
  });

  it('never log the direct URL\'s password', () => {
    const s = loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_DATABASE_DIRECT_URL: 'postgres://herald:s3cr3t-direct@db:5432/herald' }, { cwd: dir });
    const lines: string[] = [];
    const logger = createProcessLogger({ ...s, logFormat: 'json' }, new Writable({ write(chunk: Buffer, _e, cb) { lines.push(chunk.toString()); cb(); } }));
    logger.warn('connecting', { url: s.databaseDirectUrl });
    expect(lines.join('')).not.toContain('s3cr3t-direct');
  });
});

describe('settings that name a place', () => {
  it('refuses port 0 in SVC_LISTEN (the public URL and every problem type would point at it)', () => {
    expect(loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_LISTEN: '127.0.0.1:0' }).setting).toBe('SVC_LISTEN');
  });

  it('checks SVC_ROLES from the environment even when a one-role command overrides it', () => {
    let err: unknown;
    try {
      loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_ROLES: 'api,foo' }, { cwd: dir, overrides: { SVC_ROLES: 'worker' } });
    } catch (e) { err = e; }
    expect((err as SettingsError).setting).toBe('SVC_ROLES');
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_ROLES: 'api' }, { cwd: dir, overrides: { SVC_ROLES: 'worker' } }).roles).toEqual(['worker']);
  });

  it('takes SVC_ANSWER_CACHE_MB as whole MiB, 16 by default, 0 for none', () => {
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir }).answerCacheMiB).toBe(16);
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_ANSWER_CACHE_MB: '0' }, { cwd: dir }).answerCacheMiB).toBe(0);
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_ANSWER_CACHE_MB: '64' }, { cwd: dir }).answerCacheMiB).toBe(64);
    for (const bad of ['-1', '1.5', 'lots', '5000']) expect(loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_ANSWER_CACHE_MB: bad }).setting).toBe('SVC_ANSWER_CACHE_MB');
  });

  it('takes SVC_PROBE_LISTEN as host:port, unset by default', () => {
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir }).probeListen).toBeUndefined();
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_PROBE_LISTEN: '[::1]:9464' }, { cwd: dir }).probeListen).toEqual({ host: '::1', port: 9464 });
    expect(loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_PROBE_LISTEN: 'nope' }).setting).toBe('SVC_PROBE_LISTEN');
  });

  it('names SVC_DATA_DIR when the key file cannot be made there, and makes nothing', () => {
    writeFileSync(path.join(dir, 'a-file'), 'x');
    const err = loadError({ ...BASE, SVC_DATA_DIR: path.join(dir, 'a-file', 'data') });
    expect(err.setting).toBe('SVC_DATA_DIR');
    expect(err.message).toContain('ENOTDIR');
  });

  it('names SVC_DATA_DIR, not SVC_SECRET_KEY, for a malformed key file', () => {
    writeFileSync(path.join(dir, 'secret.key'), 'not a key\n');
    const err = loadError({ ...BASE, SVC_DATA_DIR: dir });
    expect(err.setting).toBe('SVC_DATA_DIR');
    expect(err.message).toContain('secret.key');
  });

  it('requires SVC_GITOPS_DIR to be an existing directory', () => {
    expect(loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_GITOPS_DIR: path.join(dir, 'missing') }).setting).toBe('SVC_GITOPS_DIR');
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_GITOPS_DIR: dir }, { cwd: dir }).gitopsDir).toBe(dir);
  });
});

describe('the key file made on first start', () => {
  it('is the same key for every process that starts without SVC_SECRET_KEY', () => {
    const keys = Array.from({ length: 3 }, () => loadSettings({ ...BASE, SVC_DATA_DIR: dir }, { cwd: dir }).secretKey.toString('base64'));
    expect(new Set(keys).size).toBe(1);
    // No temporary files are left behind.
    expect(readdirSync(dir)).toEqual(['secret.key']);
  });
});

describe('the settings tables', () => {
  it('declare every known setting once, each with a meaning and a default', () => {
    const rows = describeSettings();
    expect(rows.map((r) => r.env)).toEqual([...KNOWN_SETTINGS]);
    expect(new Set(KNOWN_SETTINGS).size).toBe(KNOWN_SETTINGS.length);
    for (const r of rows) {
      expect(r.env).toMatch(/^SVC_[A-Z0-9_]+$/);
      expect([r.env, r.description.length > 10, r.default.length > 0]).toEqual([r.env, true, true]);
    }
    // The settings that existed before the tables, and the ones added with them.
    expect(KNOWN_SETTINGS).toEqual(expect.arrayContaining([
      'SVC_DATABASE_URL', 'SVC_REDIS_URL', 'SVC_LISTEN', 'SVC_PUBLIC_URL', 'SVC_SECRET_KEY', 'SVC_DATA_DIR', 'SVC_ROLES',
      'SVC_LOG_FORMAT', 'SVC_LOG_LEVEL', 'SVC_METRICS_TOKEN', 'SVC_SMTP_URL', 'SVC_MAIL_FROM', 'SVC_GITOPS_DIR',
      'SVC_OUTBOUND_ALLOW', 'SVC_PROBE_LISTEN', 'SVC_QUEUE_PREFIX', 'SVC_SCHEDULER_TICK_SECONDS', 'SVC_SHUTDOWN_TIMEOUT_SECONDS',
      'SVC_SESSION_IDLE_MINUTES', 'SVC_SESSION_MAX_HOURS', 'SVC_BCRYPT_COST', 'SVC_STORE_TIMEOUT_SECONDS', 'SVC_TRUST_PROXY',
      'SVC_CORS_ORIGINS', 'SVC_SECRET_KEY_PREVIOUS', 'SVC_DELIVERY_SENDS', 'SVC_DELIVERY_BACKOFF_MS', 'SVC_RESULT_RETENTION_DAYS', 'SVC_STORAGE_S3',
    ]));
  });

  it('are each documented in the README settings table, which names no other', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('## Configuration\n');
    expect(start).toBeGreaterThanOrEqual(0);
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const documented = new Set<string>();
    for (const line of section.split('\n').filter((l) => l.startsWith('| `SVC_'))) {
      const firstCell = line.split('|')[1]!;
      for (const m of firstCell.matchAll(/`(SVC_[A-Z0-9_]+)`/g)) documented.add(m[1]!);
    }
    expect([...KNOWN_SETTINGS].filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !KNOWN_SETTINGS.includes(name))).toEqual([]);
  });

  it('fill every field of Settings, flat', () => {
    const s = loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir });
    expect(Object.keys(s).sort()).toEqual([
      'answerCacheMiB', 'apiProcesses', 'bcryptCost', 'connectorPoolSize', 'corsOrigins', 'dataDir', 'databaseDirectUrl', 'databasePrepare', 'databaseUrl', 'deliveryBackoffMs', 'deliveryBreakerFailures', 'deliveryBreakerSeconds', 'deliveryChannelLimit', 'deliveryConcurrency', 'deliveryRetryMaxHours', 'deliveryRetrySchedule', 'deliverySends', 'eventsRetentionHours', 'gitopsDir', 'heapSettle', 'keys', 'listen', 'logFormat', 'logLevel', 'mailFrom',
      'metricsToken', 'outboundAllow', 'previousSecretKeys', 'probeListen', 'publicUrl', 'queuePrefix', 'redisUrl', 'resultRetentionDays', 'roles',
      'runTimeoutSeconds', 'schedulerTickSeconds', 'secretKey', 'sessionIdleMinutes', 'sessionMaxHours', 'shutdownTimeoutSeconds', 'smtpUrl', 'storageS3', 'storeLockSeconds',
      'storeTimeoutSeconds', 'trustProxy', 'webDir', 'workerConcurrency', 'workerLockSeconds',
    ]);
    const typed: { roles: ProcessRole[]; listen: { host: string; port: number }; corsOrigins: string[] } = s;
    expect(typed.roles).toEqual(['api', 'scheduler', 'worker']);
  });
});

describe('SVC_CORS_ORIGINS', () => {
  it('is empty by default and takes a comma list of exact origins', () => {
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir }).corsOrigins).toEqual([]);
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }, { cwd: dir }).corsOrigins)
      .toEqual(['https://app.example.com', 'http://localhost:5173']);
  });

  it('stops on anything that is not an exact origin, naming the setting', () => {
    for (const bad of ['app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'ftp://example.com', '*', 'https://App.example.com']) {
      expect({ bad, setting: loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_CORS_ORIGINS: bad }).setting }).toEqual({ bad, setting: 'SVC_CORS_ORIGINS' });
    }
  });
});

describe('SVC_SECRET_KEY_PREVIOUS and the derived keys', () => {
  const OLD = Buffer.alloc(32, 9).toString('base64');
  const OLDER = Buffer.alloc(32, 11).toString('base64');

  it('keeps earlier keys in the keyring, newest first, and derives separate keys from each', () => {
    const s = loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_SECRET_KEY_PREVIOUS: ` ${OLD} , ${OLDER}` }, { cwd: dir });
    expect(s.previousSecretKeys.map((k) => k.toString('base64'))).toEqual([OLD, OLDER]);
    expect(s.keys.current.master.equals(s.secretKey)).toBe(true);
    expect(s.keys.previous.map((k) => k.master.toString('base64'))).toEqual([OLD, OLDER]);
    expect(s.keys.hmac.equals(s.keys.current.hmac)).toBe(true);
    expect(s.keys.hmacKeys).toHaveLength(3);
    const all = [s.secretKey, ...s.keys.hmacKeys, s.keys.current.encryption, ...s.keys.previous.map((k) => k.encryption)];
    expect(new Set(all.map((k) => k.toString('hex'))).size).toBe(all.length);
    expect(new Set([s.keys.current.kid, ...s.keys.previous.map((k) => k.kid)]).size).toBe(3);
  });

  it('is empty by default, and a bad item stops start-up naming the setting, never the value', () => {
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir }).keys.previous).toEqual([]);
    const err = loadError({ ...BASE, SVC_SECRET_KEY: KEY, SVC_SECRET_KEY_PREVIOUS: `${OLD},not-a-key` });
    expect(err.setting).toBe('SVC_SECRET_KEY_PREVIOUS');
    expect(err.message).toContain('item 2');
    expect(err.message).not.toContain(OLD);
  });

  it('works beside a key file too (moving from the key file to SVC_SECRET_KEY)', () => {
    const first = loadSettings({ ...BASE, SVC_DATA_DIR: dir }, { cwd: dir });
    const moved = loadSettings({ ...BASE, SVC_DATA_DIR: dir, SVC_SECRET_KEY: KEY, SVC_SECRET_KEY_PREVIOUS: first.secretKey.toString('base64') }, { cwd: dir });
    expect(moved.keys.previous[0]!.kid).toBe(first.keys.current.kid);
  });
});

describe('loadSettings options for commands', () => {
  it("files: 'none' makes no key file, yet reads an existing one; 'existing' requires one", () => {
    const dataDir = path.join(dir, 'state');
    const dry = loadSettings({ ...BASE, SVC_DATA_DIR: dataDir }, { cwd: dir, files: 'none' });
    expect(dry.secretKey).toHaveLength(32);
    expect(existsSync(dataDir)).toBe(false);
    let err: unknown;
    try {
      loadSettings({ ...BASE, SVC_DATA_DIR: dataDir }, { cwd: dir, files: 'existing' });
    } catch (e) { err = e; }
    expect((err as SettingsError).setting).toBe('SVC_SECRET_KEY');
    expect(existsSync(dataDir)).toBe(false);
    expect(loadSettings({ ...BASE, SVC_DATA_DIR: dataDir, SVC_SECRET_KEY: KEY }, { cwd: dir, files: 'existing' }).secretKey.toString('base64')).toBe(KEY);

    const real = loadSettings({ ...BASE, SVC_DATA_DIR: dataDir }, { cwd: dir });
    for (const files of ['none', 'existing'] as const) {
      expect(loadSettings({ ...BASE, SVC_DATA_DIR: dataDir }, { cwd: dir, files }).secretKey.equals(real.secretKey)).toBe(true);
    }
  });

  it('unused: a stand-in for an unset setting the command does not use; a given one is still checked', () => {
    const env = { SVC_DATABASE_URL: BASE.SVC_DATABASE_URL, SVC_SECRET_KEY: KEY };
    expect(loadSettings(env, { cwd: dir, unused: { SVC_REDIS_URL: 'redis://unused.invalid' } }).redisUrl).toBe('redis://unused.invalid');
    expect(loadSettings({ ...env, SVC_REDIS_URL: ' ' }, { cwd: dir, unused: { SVC_REDIS_URL: 'redis://unused.invalid' } }).redisUrl).toBe('redis://unused.invalid');
    let err: unknown;
    try {
      loadSettings({ ...env, SVC_REDIS_URL: 'http://x' }, { cwd: dir, unused: { SVC_REDIS_URL: 'redis://unused.invalid' } });
    } catch (e) { err = e; }
    expect((err as SettingsError).setting).toBe('SVC_REDIS_URL');
  });
});

describe('healthcheckAddress', () => {
  it('is SVC_PROBE_LISTEN when set, else SVC_LISTEN, else the default, and needs nothing else', () => {
    expect(healthcheckAddress({})).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(healthcheckAddress({ SVC_LISTEN: '0.0.0.0:9000' })).toEqual({ host: '0.0.0.0', port: 9000 });
    expect(healthcheckAddress({ SVC_LISTEN: '0.0.0.0:9000', SVC_PROBE_LISTEN: '[::1]:9464' })).toEqual({ host: '::1', port: 9464 });
    expect(() => healthcheckAddress({ SVC_PROBE_LISTEN: 'nope' })).toThrow(/^SVC_PROBE_LISTEN:/);
  });
});

describe('SVC_HEAP_SETTLE', () => {
  it('is on by default, takes true or false, and refuses anything else naming the setting', () => {
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY }, { cwd: dir }).heapSettle).toBe(true);
    expect(loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_HEAP_SETTLE: 'false' }, { cwd: dir }).heapSettle).toBe(false);
    expect(() => loadSettings({ ...BASE, SVC_SECRET_KEY: KEY, SVC_HEAP_SETTLE: 'no' }, { cwd: dir })).toThrow(/SVC_HEAP_SETTLE/);
  });
});
