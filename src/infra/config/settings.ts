/**
 * Settings are read from SVC_* environment variables once, at start, and checked.
 * Nothing outside this folder reads process.env. A bad setting stops start-up with one line
 * that names it (SettingsError).
 *
 * Each concern declares its settings in a table of its own (store.ts, http.ts, security.ts, …);
 * this file assembles them into the flat `Settings` type, the list of known settings and the
 * loader. To add a setting, add a row to one table and its line to the README's settings table.
 */
import { gitopsSettings } from './gitops.js';
import { httpSettings, listenerSettings } from './http.js';
import { loggingSettings } from './logging.js';
import { mailSettings } from './mail.js';
import { deliverySettings, outboundSettings } from './outbound.js';
import { processSettings } from './process.js';
import { queueSettings } from './queue.js';
import { schedulerSettings, storageSettings, workerSettings } from './scheduler.js';
import { securitySettings } from './security.js';
import { sessionSettings } from './sessions.js';
import { storeSettings } from './store.js';
import { SettingsError, valueIn, type Env, type FilesMode, type ParseContext, type Schema, type Setting } from './schema.js';

export { SettingsError, isAddressOrCidr } from './schema.js';
export type { FilesMode, HostPort } from './schema.js';
export type { ProcessRole } from './process.js';
export type { LogFormat, LogLevel } from './logging.js';

/** Every table, in the order they are read (the secret key, marked `last`, after all of them). */
export const SCHEMAS = {
  store: storeSettings,
  queue: queueSettings,
  http: httpSettings,
  process: processSettings,
  logging: loggingSettings,
  security: securitySettings,
  mail: mailSettings,
  outbound: outboundSettings,
  delivery: deliverySettings,
  gitops: gitopsSettings,
  scheduler: schedulerSettings,
  worker: workerSettings,
  storage: storageSettings,
  sessions: sessionSettings,
} as const;

type Tables = typeof SCHEMAS;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type AllRows = UnionToIntersection<Tables[keyof Tables]>;

/** The settings, flat: one field per row of every table. */
export type Settings = { [K in keyof AllRows]: AllRows[K] extends Setting<infer T> ? T : never };

/** Every row by field name; two tables naming one field, or one variable, is a mistake caught here. */
const ROWS: Array<[field: string, row: Setting<unknown>]> = (() => {
  const rows: Array<[string, Setting<unknown>]> = [];
  const envs = new Set<string>();
  for (const table of Object.values(SCHEMAS) as Schema[]) {
    for (const [field, row] of Object.entries(table)) {
      if (rows.some(([f]) => f === field)) throw new Error(`settings: field ${field} is declared twice`);
      if (row.env !== undefined) {
        if (envs.has(row.env)) throw new Error(`settings: ${row.env} is declared twice`);
        envs.add(row.env);
      }
      rows.push([field, row]);
    }
  }
  return rows;
})();

/** How a row is named in messages: its variable, or its field for a derived value. */
function nameOf(row: Setting<unknown>): string {
  return row.env ?? ROWS.find(([, r]) => r === row)?.[0] ?? 'a setting';
}

/** The settings this program knows; any other SVC_* variable is a mistake worth stopping for. */
export const KNOWN_SETTINGS: readonly string[] = ROWS.flatMap(([, row]) => (row.env === undefined ? [] : [row.env]));

/** The documented settings: variable, meaning, default (for `herald help settings`). */
export function describeSettings(): Array<{ env: string; description: string; default: string }> {
  return ROWS.flatMap(([, row]) => (row.env === undefined ? [] : [{ env: row.env, description: row.description, default: row.default }]));
}

export interface LoadOptions {
  /** Settings the command line fixes, e.g. SVC_ROLES for `herald worker`. */
  overrides?: Env;
  /** The working directory that relative paths are resolved against. */
  cwd?: string;
  /**
   * Values for settings a command does not use, taken only when the environment has none
   * (e.g. SVC_REDIS_URL for `herald admin reset-password`, which needs no Redis).
   */
  unused?: Env;
  /**
   * The key file when SVC_SECRET_KEY is unset and SVC_DATA_DIR holds none: 'create' it (the
   * default: a first start), 'none' (make nothing, use a throwaway key: `herald check-config`
   * and commands that use no key), or 'existing' (a SettingsError: commands that must use the
   * service's own key).
   */
  files?: FilesMode;
}

function reader(merged: Env, given: Env, options: LoadOptions) {
  const values = new Map<Setting<unknown>, unknown>();
  const reading = new Set<Setting<unknown>>();
  let lastPhase = false;
  const isTty = process.stdout.isTTY === true;
  const read = <T>(row: Setting<T>, name: string): T => {
    if (values.has(row)) return values.get(row) as T;
    if (row.last && !lastPhase) throw new Error(`settings: ${name} is read before the other settings are checked`);
    if (reading.has(row)) throw new Error(`settings: ${name} depends on itself`);
    reading.add(row);
    const ctx: ParseContext = {
      name,
      env: merged,
      given,
      cwd: options.cwd ?? process.cwd(),
      isTty,
      files: options.files ?? 'create',
      valueOf: <U>(other: Setting<U>) => read(other, nameOf(other)),
      fail: (message: string) => { throw new SettingsError(name, message); },
    };
    const value = row.parse(row.env === undefined ? undefined : valueIn(merged, row.env), ctx);
    values.set(row, value);
    return value;
  };
  return { read, startLastPhase: () => { lastPhase = true; } };
}

export function loadSettings(env: Env, options: LoadOptions = {}): Settings {
  const merged: Env = { ...options.unused, ...env, ...options.overrides };
  for (const name of Object.keys(merged)) {
    if (name.startsWith('SVC_') && !KNOWN_SETTINGS.includes(name)) {
      throw new SettingsError(name, 'is not a setting Herald knows (see the README for the list)');
    }
  }
  for (const name of Object.keys(options.unused ?? {})) {
    if (valueIn(merged, name) === undefined) merged[name] = options.unused![name];
  }
  const { read, startLastPhase } = reader(merged, { ...options.unused, ...env }, options);
  const out: Record<string, unknown> = {};
  for (const [field, row] of ROWS) if (!row.last) out[field] = read(row, nameOf(row));
  // The key comes last: a bad setting above must not leave a fresh key file behind.
  startLastPhase();
  for (const [field, row] of ROWS) if (row.last) out[field] = read(row, nameOf(row));
  return out as Settings;
}

/**
 * Where `herald healthcheck` finds /health/ready: SVC_PROBE_LISTEN when set (every process has
 * it then), else SVC_LISTEN. Needs no other setting.
 */
export function healthcheckAddress(env: Env): { host: string; port: number } {
  const { read } = reader(env, env, { files: 'none' });
  return read(listenerSettings.probeListen, 'SVC_PROBE_LISTEN') ?? read(listenerSettings.listen, 'SVC_LISTEN');
}
