/** The scheduler and worker roles: tick interval, worker concurrency, run time limit. */
import { integer, setting } from './schema.js';
import { parseS3StorageUrl, type S3StorageConfig } from '../artifacts/s3-store.js';

export const schedulerSettings = {
  schedulerTickSeconds: integer('SVC_SCHEDULER_TICK_SECONDS', { fallback: 10, min: 1, max: 60 },
    'scheduler tick interval (a tick also starts at each minute of the store\'s clock, so runs due at a minute are queued just after it): sweeps, notifications and housekeeping run once per tick (readiness wants a tick within three)'),
};

export const workerSettings = {
  workerConcurrency: integer('SVC_WORKER_CONCURRENCY', { fallback: 4, min: 1, max: 200 },
    'runs one worker process executes at once'),
  connectorPoolSize: integer('SVC_CONNECTOR_POOL_SIZE', { fallback: 0, min: 0, max: 500 },
    'connections one process opens at most to one saved database; runs and previews beyond it wait (a run\'s query step records the wait as wait_ms); 0 follows SVC_WORKER_CONCURRENCY, at least 5'),
  runTimeoutSeconds: integer('SVC_RUN_TIMEOUT_SECONDS', { fallback: 900, min: 10, max: 86_400 },
    'longest a run may take (its query included) before it is stopped and ends failed with run.timeout'),
  workerLockSeconds: integer('SVC_WORKER_LOCK_SECONDS', { fallback: 30, min: 2, max: 600 },
    'how long a worker holds a run without renewing its lock; a crashed worker\'s run is taken again by another after it'),
};

/** Result files: how long they are kept. */
export const storageSettings = {
  resultRetentionDays: integer('SVC_RESULT_RETENTION_DAYS', { fallback: 30, min: 1, max: 3650 },
    'days a run\'s result file is kept; the scheduler removes older ones hourly (links to them then answer 410 link.expired)'),
  storageS3: setting<S3StorageConfig | undefined>({
    env: 'SVC_STORAGE_S3',
    description: 'keep result files in an S3-compatible bucket instead of SVC_DATA_DIR (fleets on several machines): s3://KEY:SECRET@BUCKET/PREFIX?region=R&endpoint=URL&path_style=true',
    default: 'unset: files under SVC_DATA_DIR',
    parse(v, ctx) {
      if (v === undefined || v === '') return undefined;
      try {
        return parseS3StorageUrl(v);
      } catch (err) {
        return ctx.fail((err as Error).message);
      }
    },
  }),
};
