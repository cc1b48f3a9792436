/**
 * Settings are read from SVC_* environment variables once, at start, and checked.
 * Nothing outside this folder reads process.env. A bad setting stops start-up with one line
 * that names it (SettingsError).
 */
import { isIP } from 'node:net';
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export type ProcessRole = 'api' | 'scheduler' | 'worker';
export type LogFormat = 'json' | 'text';
export type LogLevel = 'error' | 'warn' | 'info' | 'http' | 'verbose' | 'debug';

export interface Settings {
  databaseUrl: string;
  redisUrl: string;
  listen: { host: string; port: number };
  /** SVC_PROBE_LISTEN: a second listener for /health/* and /metrics only, in any process. */
  probeListen: { host: string; port: number } | undefined;
  publicUrl: string;
  /** 32 bytes; never logged. */
  secretKey: Buffer;
  dataDir: string;
  roles: ProcessRole[];
  logFormat: LogFormat;
  logLevel: LogLevel;
  metricsToken: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string | undefined;
  gitopsDir: string | undefined;
  outboundAllow: string[];
  queuePrefix: string;
  schedulerTickSeconds: number;
  shutdownTimeoutSeconds: number;
  sessionIdleMinutes: number;
  sessionMaxHours: number;
  bcryptCost: number;
  storeTimeoutSeconds: number;
  /** Proxies whose X-Forwarded-For is believed (express "trust proxy"); false: none. */
  trustProxy: string[] | false;
  /** SVC_CORS_ORIGINS: exact origins whose pages may call the API; empty: CORS off. */
  corsOrigins: string[];
}

export class SettingsError extends Error {
  constructor(readonly setting: string, message: string) {
    super(`${setting}: ${message}`);
  }
}

/** The settings this program knows; any other SVC_* variable is a mistake worth stopping for. */
export const KNOWN_SETTINGS = [
  'SVC_DATABASE_URL', 'SVC_REDIS_URL', 'SVC_LISTEN', 'SVC_PUBLIC_URL', 'SVC_SECRET_KEY', 'SVC_DATA_DIR',
  'SVC_ROLES', 'SVC_LOG_FORMAT', 'SVC_LOG_LEVEL', 'SVC_METRICS_TOKEN', 'SVC_SMTP_URL', 'SVC_MAIL_FROM',
  'SVC_GITOPS_DIR', 'SVC_OUTBOUND_ALLOW', 'SVC_PROBE_LISTEN', 'SVC_QUEUE_PREFIX', 'SVC_SCHEDULER_TICK_SECONDS',
  'SVC_SHUTDOWN_TIMEOUT_SECONDS', 'SVC_SESSION_IDLE_MINUTES', 'SVC_SESSION_MAX_HOURS', 'SVC_BCRYPT_COST', 'SVC_STORE_TIMEOUT_SECONDS', 'SVC_TRUST_PROXY',
  'SVC_CORS_ORIGINS',
] as const;

type Env = Record<string, string | undefined>;

function nonEmpty(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function required(env: Env, name: string): string {
  const v = nonEmpty(env, name);
  if (v === undefined) throw new SettingsError(name, 'is required');
  return v;
}

function url(name: string, value: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new SettingsError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new SettingsError(name, `must use ${protocols.map((p) => p.replace(':', '')).join(' or ')}`);
  }
  return value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const v = nonEmpty(env, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v)) throw new SettingsError(name, 'must be a whole number');
  const n = Number(v);
  if (n < min || n > max) throw new SettingsError(name, `must be between ${min} and ${max}`);
  return n;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = nonEmpty(env, name);
  if (v === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new SettingsError(name, `must be one of ${allowed.join(', ')}`);
  return v as T;
}

/**
 * Where `herald healthcheck` finds /health/ready: SVC_PROBE_LISTEN when set (every process has
 * it then), else SVC_LISTEN. Needs no other setting.
 */
export function healthcheckAddress(env: Env): { host: string; port: number } {
  return nonEmpty(env, 'SVC_PROBE_LISTEN') !== undefined ? hostPort(env, 'SVC_PROBE_LISTEN', '') : listen(env);
}

function listen(env: Env): { host: string; port: number } {
  return hostPort(env, 'SVC_LISTEN', '127.0.0.1:8080');
}

function hostPort(env: Env, name: string, fallback: string): { host: string; port: number } {
  const v = nonEmpty(env, name) ?? fallback;
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(v);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) throw new SettingsError(name, 'must be host:port with a port of 1 to 65535, e.g. 127.0.0.1:8080');
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function secretKey(env: Env, dataDir: string): Buffer {
  const v = nonEmpty(env, 'SVC_SECRET_KEY');
  const decode = (text: string, origin: string): Buffer => {
    const buf = Buffer.from(text.trim(), 'base64');
    if (buf.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text.trim())) {
      throw new SettingsError(origin, 'must be base64 of exactly 32 bytes (openssl rand -base64 32)');
    }
    return buf;
  };
  if (v !== undefined) return decode(v, 'SVC_SECRET_KEY');
  // No key given: use (or make, on first start) one kept in the data directory.
  const file = path.join(dataDir, 'secret.key');
  const fromFile = (text: string): Buffer => {
    try {
      return decode(text, 'SVC_DATA_DIR');
    } catch {
      throw new SettingsError('SVC_DATA_DIR', `${file} is not base64 of 32 bytes; restore it, or set SVC_SECRET_KEY`);
    }
  };
  try {
    if (existsSync(file)) return fromFile(readFileSync(file, 'utf8'));
    return makeKeyFile(dataDir, file, fromFile);
  } catch (err) {
    if (err instanceof SettingsError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new SettingsError('SVC_DATA_DIR', `cannot keep the secret key in ${dataDir} (${code}); make it writable, or set SVC_SECRET_KEY`);
  }
}

/** Makes the key file of a first start; processes starting together agree on one key. */
function makeKeyFile(dataDir: string, file: string, fromFile: (text: string) => Buffer): Buffer {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  // Written whole to a private file, then linked into place: processes starting together
  // agree on one key (the loser of the link reads the winner's) and never read half a file.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, file);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return fromFile(readFileSync(file, 'utf8'));
  } finally {
    unlinkSync(temp);
  }
}

function roles(env: Env): ProcessRole[] {
  const v = nonEmpty(env, 'SVC_ROLES') ?? 'api,scheduler,worker';
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  const allowed: ProcessRole[] = ['api', 'scheduler', 'worker'];
  if (list.length === 0 || list.some((r) => !allowed.includes(r as ProcessRole))) {
    throw new SettingsError('SVC_ROLES', 'must be a comma list of api, scheduler, worker');
  }
  return [...new Set(list as ProcessRole[])];
}

function outboundAllow(env: Env): string[] {
  const v = nonEmpty(env, 'SVC_OUTBOUND_ALLOW');
  if (v === undefined) return [];
  const items = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of items) {
    const cidr = isAddressOrCidr(item);
    const host = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(item);
    if (!cidr && !host) throw new SettingsError('SVC_OUTBOUND_ALLOW', `"${item}" is neither a CIDR nor a host name`);
  }
  return items;
}

/** An IPv4 or IPv6 address, optionally with a prefix length that fits it (10.0.0.0/8, ::1). */
export function isAddressOrCidr(item: string): boolean {
  const m = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(item);
  if (!m) return false;
  const family = isIP(m[1]!);
  if (family === 0) return false;
  return m[2] === undefined || Number(m[2]) <= (family === 4 ? 32 : 128);
}

function trustProxy(env: Env): string[] | false {
  const v = nonEmpty(env, 'SVC_TRUST_PROXY') ?? 'loopback';
  if (v === 'none') return false;
  const items = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of items) {
    const named = ['loopback', 'linklocal', 'uniquelocal'].includes(item);
    if (!named && !isAddressOrCidr(item)) {
      throw new SettingsError('SVC_TRUST_PROXY', `"${item}" is not an address, a CIDR, loopback, linklocal, uniquelocal or none`);
    }
  }
  return items;
}

function corsOrigins(env: Env): string[] {
  const v = nonEmpty(env, 'SVC_CORS_ORIGINS');
  if (v === undefined) return [];
  const items = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of items) {
    let origin: string | undefined;
    try {
      origin = new URL(item).origin;
    } catch {
      origin = undefined;
    }
    if (origin !== item || !/^https?:/.test(item)) {
      throw new SettingsError('SVC_CORS_ORIGINS', `"${item}" is not an origin (scheme://host[:port], no path), e.g. https://app.example.com`);
    }
  }
  return [...new Set(items)];
}

function gitopsDir(env: Env, cwd: string): string | undefined {
  const v = nonEmpty(env, 'SVC_GITOPS_DIR');
  if (v === undefined) return undefined;
  const dir = path.resolve(cwd, v);
  const isDir = (() => {
    try {
      return statSync(dir).isDirectory();
    } catch {
      return false;
    }
  })();
  if (!isDir) throw new SettingsError('SVC_GITOPS_DIR', `${dir} is not a directory`);
  return dir;
}

export interface LoadOptions {
  /** Settings the command line fixes, e.g. SVC_ROLES for `herald worker`. */
  overrides?: Env;
  /** The working directory that relative paths are resolved against. */
  cwd?: string;
}

export function loadSettings(env: Env, options: LoadOptions = {}): Settings {
  const merged: Env = { ...env, ...options.overrides };
  for (const name of Object.keys(merged)) {
    if (name.startsWith('SVC_') && !(KNOWN_SETTINGS as readonly string[]).includes(name)) {
      throw new SettingsError(name, 'is not a setting Herald knows (see the README for the list)');
    }
  }
  const cwd = options.cwd ?? process.cwd();
  const l = listen(merged);
  const dataDir = path.resolve(cwd, nonEmpty(merged, 'SVC_DATA_DIR') ?? '.data');
  const publicUrl = url('SVC_PUBLIC_URL', nonEmpty(merged, 'SVC_PUBLIC_URL')
    ?? `http://${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`, ['http:', 'https:']).replace(/\/+$/, '');
  const smtpUrl = nonEmpty(merged, 'SVC_SMTP_URL');
  const mailFrom = nonEmpty(merged, 'SVC_MAIL_FROM');
  if (mailFrom !== undefined && !/^[^\s@<>]+@[^\s@<>]+$|^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(mailFrom)) {
    throw new SettingsError('SVC_MAIL_FROM', 'must be an address, e.g. Herald <herald@example.com>');
  }
  const metricsToken = nonEmpty(merged, 'SVC_METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new SettingsError('SVC_METRICS_TOKEN', 'must be at least 16 characters');
  }
  const queuePrefix = nonEmpty(merged, 'SVC_QUEUE_PREFIX') ?? 'herald';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(queuePrefix)) {
    throw new SettingsError('SVC_QUEUE_PREFIX', 'must be 1 to 64 letters, digits, - or _');
  }
  // A one-role command overrides SVC_ROLES, but a malformed value in the environment is still a mistake.
  roles(env);
  const isTty = process.stdout.isTTY === true;
  const settings: Settings = {
    databaseUrl: url('SVC_DATABASE_URL', required(merged, 'SVC_DATABASE_URL'), ['postgres:', 'postgresql:']),
    redisUrl: url('SVC_REDIS_URL', required(merged, 'SVC_REDIS_URL'), ['redis:', 'rediss:']),
    listen: l,
    probeListen: nonEmpty(merged, 'SVC_PROBE_LISTEN') === undefined ? undefined : hostPort(merged, 'SVC_PROBE_LISTEN', ''),
    publicUrl,
    secretKey: Buffer.alloc(0),
    dataDir,
    roles: roles(merged),
    logFormat: oneOf(merged, 'SVC_LOG_FORMAT', ['json', 'text'] as const, isTty ? 'text' : 'json'),
    logLevel: oneOf(merged, 'SVC_LOG_LEVEL', ['error', 'warn', 'info', 'http', 'verbose', 'debug'] as const, 'info'),
    metricsToken,
    smtpUrl: smtpUrl === undefined ? undefined : url('SVC_SMTP_URL', smtpUrl, ['smtp:', 'smtps:']),
    mailFrom,
    gitopsDir: gitopsDir(merged, cwd),
    outboundAllow: outboundAllow(merged),
    queuePrefix,
    schedulerTickSeconds: integer(merged, 'SVC_SCHEDULER_TICK_SECONDS', 5, 1, 60),
    shutdownTimeoutSeconds: integer(merged, 'SVC_SHUTDOWN_TIMEOUT_SECONDS', 30, 1, 3600),
    sessionIdleMinutes: integer(merged, 'SVC_SESSION_IDLE_MINUTES', 60 * 24, 5, 60 * 24 * 30),
    sessionMaxHours: integer(merged, 'SVC_SESSION_MAX_HOURS', 24 * 14, 1, 24 * 365),
    bcryptCost: integer(merged, 'SVC_BCRYPT_COST', 12, 12, 15),
    storeTimeoutSeconds: integer(merged, 'SVC_STORE_TIMEOUT_SECONDS', 30, 1, 3600),
    trustProxy: trustProxy(merged),
    corsOrigins: corsOrigins(merged),
  };
  // The key comes last: a bad setting above must not leave a fresh key file behind.
  settings.secretKey = secretKey(merged, dataDir);
  return settings;
}
