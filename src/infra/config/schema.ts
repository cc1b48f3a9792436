/**
 * How a setting is declared: one row of a small table per concern (store.ts, http.ts, …) with
 * its environment variable, parser, default and description. settings.ts assembles the tables
 * into the flat Settings type, the list of known settings and the loader; adding a setting means
 * adding one row to one table (and its line to the README's settings table, which a test checks).
 */
import { isIP } from 'node:net';

export type Env = Record<string, string | undefined>;

export type FilesMode = 'create' | 'none' | 'existing';

/** A bad setting: `setting` is its name; the message never holds its value. */
export class SettingsError extends Error {
  constructor(readonly setting: string, message: string) {
    super(`${setting}: ${message}`);
  }
}

export interface ParseContext {
  /** The setting being read (its environment variable, or its field for a derived value). */
  name: string;
  /** The settings as given: the environment with the command's overrides applied. */
  env: Env;
  /** The environment alone, before the command's overrides (SVC_ROLES under `herald worker`). */
  given: Env;
  /** The folder relative paths are resolved against. */
  cwd: string;
  /** Whether stdout is a terminal (text logs by default). */
  isTty: boolean;
  /**
   * What a setting kept on disk may do when its file is missing: 'create' it (a first start),
   * make 'none' and use a throwaway (`herald check-config`), or require an 'existing' one (a
   * command that must act with the service's own key).
   */
  files: FilesMode;
  /** The value of another setting, read first when it has not been yet. */
  valueOf<T>(other: Setting<T>): T;
  /** Stops with a SettingsError naming this setting. */
  fail(message: string): never;
}

export interface Setting<T> {
  /** The environment variable (SVC_…); none for a value derived from other settings. */
  env?: string;
  /** What it means, one line (`herald help settings` prints it). */
  description: string;
  /** The default, as a person reads it. */
  default: string;
  /** Read after every other setting is known to be good (it makes files: the secret key). */
  last?: boolean;
  /** `value` is the variable trimmed, or undefined when it is unset or blank. */
  parse(value: string | undefined, ctx: ParseContext): T;
}

export type Schema = Record<string, Setting<unknown>>;

export function setting<T>(spec: Setting<T>): Setting<T> {
  return spec;
}

/** The trimmed value of a variable, or undefined when it is unset or blank. */
export function valueIn(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

// ----------------------------------------------------------- row builders ---

export function required(ctx: ParseContext, value: string | undefined): string {
  if (value === undefined) ctx.fail('is required');
  return value;
}

export function checkUrl(ctx: ParseContext, value: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    ctx.fail('is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    ctx.fail(`must use ${protocols.map((p) => p.replace(':', '')).join(' or ')}`);
  }
  return value;
}

/** A required URL with one of the protocols. */
export function requiredUrl(env: string, protocols: string[], description: string, fallback: string): Setting<string> {
  return setting({ env, description, default: fallback, parse: (v, ctx) => checkUrl(ctx, required(ctx, v), protocols) });
}

/** An optional URL with one of the protocols. */
export function optionalUrl(env: string, protocols: string[], description: string, fallback: string): Setting<string | undefined> {
  return setting({ env, description, default: fallback, parse: (v, ctx) => (v === undefined ? undefined : checkUrl(ctx, v, protocols)) });
}

/** A whole number between min and max. */
export function integer(env: string, range: { fallback: number; min: number; max: number }, description: string): Setting<number> {
  return setting({
    env, description, default: String(range.fallback),
    parse(v, ctx) {
      if (v === undefined) return range.fallback;
      if (!/^\d+$/.test(v)) ctx.fail('must be a whole number');
      const n = Number(v);
      if (n < range.min || n > range.max) ctx.fail(`must be between ${range.min} and ${range.max}`);
      return n;
    },
  });
}

/** One of a few words. `fallback` may depend on the context (text logs on a terminal). */
export function oneOf<T extends string>(
  env: string, allowed: readonly T[], fallback: T | ((ctx: ParseContext) => T), description: string, fallbackText: string,
): Setting<T> {
  return setting({
    env, description, default: fallbackText,
    parse(v, ctx) {
      if (v === undefined) return typeof fallback === 'function' ? fallback(ctx) : fallback;
      if (!(allowed as readonly string[]).includes(v)) ctx.fail(`must be one of ${allowed.join(', ')}`);
      return v as T;
    },
  });
}

/** A comma list, blanks dropped. */
export function commaList(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(',').map((s) => s.trim()).filter(Boolean);
}

export interface HostPort { host: string; port: number }

export function hostPort(ctx: ParseContext, value: string): HostPort {
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) ctx.fail('must be host:port with a port of 1 to 65535, e.g. 127.0.0.1:8080');
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

/** An IPv4 or IPv6 address, optionally with a prefix length that fits it (10.0.0.0/8, ::1). */
export function isAddressOrCidr(item: string): boolean {
  const m = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(item);
  if (!m) return false;
  const family = isIP(m[1]!);
  if (family === 0) return false;
  return m[2] === undefined || Number(m[2]) <= (family === 4 ? 32 : 128);
}
