import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSettings, SettingsError } from '../../src/infra/config/settings.js';

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
    expect(s.schedulerTickSeconds).toBe(5);
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
