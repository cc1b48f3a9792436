/**
 * Per-file isolation: an own database cloned from the migrated template, an own queue prefix
 * in Redis, an own data folder. `release()` removes all three.
 */
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { adminDatabaseUrl, databaseUrl, redisUrl } from './env.js';

export interface Isolated {
  databaseName: string;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  dataDir: string;
  /** Settings for loadSettings: this file's store, queue prefix and data folder. */
  env: Record<string, string>;
  release(): Promise<void>;
}

export async function isolate(options: { template?: boolean } = {}): Promise<Isolated> {
  const suffix = randomBytes(5).toString('hex');
  // The creation time in the name lets a later run drop what a killed run left behind.
  const databaseName = `herald_t_${Math.floor(Date.now() / 1000)}_${suffix}`;
  const template = process.env.HERALD_TEST_TEMPLATE_DB;
  const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
  try {
    if (options.template === false || !template) await admin.unsafe(`create database ${databaseName}`);
    else await admin.unsafe(`create database ${databaseName} template ${template}`);
  } finally {
    await admin.end();
  }
  const queuePrefix = `t_${suffix}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-test-'));
  const env = {
    SVC_DATABASE_URL: databaseUrl(databaseName),
    SVC_REDIS_URL: redisUrl(),
    SVC_QUEUE_PREFIX: queuePrefix,
    SVC_DATA_DIR: dataDir,
    SVC_LOG_FORMAT: 'json',
    SVC_LOG_LEVEL: 'debug',
    SVC_ROLES: 'api',
    // The static pages, whether or not web/dist is built (tests/integration/web-ui.test.ts serves a UI).
    SVC_WEB_DIR: 'none',
  };
  return {
    databaseName,
    databaseUrl: env.SVC_DATABASE_URL,
    redisUrl: env.SVC_REDIS_URL,
    queuePrefix,
    dataDir,
    env,
    async release() {
      const a = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
      try {
        await a.unsafe(`drop database if exists ${databaseName} with (force)`);
      } finally {
        await a.end();
      }
      const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 3 });
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${queuePrefix}*`, 'COUNT', 500);
          cursor = next;
          if (keys.length > 0) await redis.del(...keys);
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
