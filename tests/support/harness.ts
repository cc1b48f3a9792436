/**
 * Starts Herald in-process for one test file, on its own database, queue prefix and data folder,
 * with every log line captured. Requests go through `http`, which checks each answer against
 * the contract.
 */
import { Writable } from 'node:stream';
import request from 'supertest';
import type { Test } from 'supertest';
import { loadSettings, type Settings } from '../../src/infra/config/settings.js';
import { createProcessLogger } from '../../src/infra/log/process-logger.js';
import { startProcess, type RunningProcess } from '../../src/main/runtime.js';
import { isolate, type Isolated } from './isolation.js';
import { checked } from './contract.js';
import type { Clock } from '../../src/core/clock.js';
import { createPasswordHasher } from '../../src/domain/identity/passwords.js';

export interface HttpClient {
  get(url: string): Test;
  post(url: string): Test;
  put(url: string): Test;
  patch(url: string): Test;
  delete(url: string): Test;
}

export interface Herald {
  http: HttpClient;
  settings: Settings;
  process: RunningProcess;
  iso: Isolated;
  logs: string[];
  stop(): Promise<void>;
}

export function clientFor(app: Parameters<typeof request>[0]): HttpClient {
  const make = (method: 'get' | 'post' | 'put' | 'patch' | 'delete') => (url: string) =>
    checked(request(app)[method](url), method, url);
  return { get: make('get'), post: make('post'), put: make('put'), patch: make('patch'), delete: make('delete') };
}

export interface StartHeraldOptions {
  env?: Record<string, string>;
  iso?: Isolated;
  clock?: Clock;
  /**
   * Hash passwords at SVC_BCRYPT_COST (12) as in production. By default tests hash at cost 4:
   * the same bcrypt, a 250th of the time, for the many files that sign in but do not check the
   * cost (tests/integration/passwords.test.ts does).
   */
  productionBcrypt?: boolean;
  /** Listen on SVC_LISTEN (give a free port in env) for clients over a real socket; `process.url` is the address. */
  listen?: boolean;
  /** The packed SDK to serve at /sdk/herald-sdk.tgz (default: dist/sdk/herald-sdk.tgz, if built). */
  sdkPackage?: string;
}

/** Cheap bcrypt for tests that do not check the cost; made once (its dummy hash costs a little). */
let cheapHasher: ReturnType<typeof createPasswordHasher> | undefined;

export async function startHerald(options: StartHeraldOptions = {}): Promise<Herald> {
  const iso = options.iso ?? await isolate();
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) { logs.push(chunk.toString('utf8')); callback(); },
  });
  const settings = loadSettings({ ...iso.env, ...options.env });
  const logger = createProcessLogger(settings, stream);
  cheapHasher ??= createPasswordHasher(4, 4);
  const proc = await startProcess(settings, logger, {
    listen: options.listen === true,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.sdkPackage ? { sdkPackage: options.sdkPackage } : {}),
    ...(options.productionBcrypt ? {} : { passwordHasher: cheapHasher }),
  });
  if (!proc.app) throw new Error('the api role is not running');
  return {
    http: clientFor(proc.app),
    settings,
    process: proc,
    iso,
    logs,
    async stop() {
      await proc.stop();
      if (!options.iso) await iso.release();
    },
  };
}
