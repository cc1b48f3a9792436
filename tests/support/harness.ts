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
import { startProcess, type RunningProcess } from '../../src/runtime.js';
import { isolate, type Isolated } from './isolation.js';
import { checked } from './contract.js';
import type { Clock } from '../../src/core/clock.js';

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

export async function startHerald(options: { env?: Record<string, string>; iso?: Isolated; clock?: Clock } = {}): Promise<Herald> {
  const iso = options.iso ?? await isolate();
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) { logs.push(chunk.toString('utf8')); callback(); },
  });
  const settings = loadSettings({ ...iso.env, ...options.env });
  const logger = createProcessLogger(settings, stream);
  const proc = await startProcess(settings, logger, { listen: false, ...(options.clock ? { clock: options.clock } : {}) });
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
