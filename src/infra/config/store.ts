/** The internal PostgreSQL store. */
import { checkUrl, integer, requiredUrl, setting } from './schema.js';

const databaseUrl = requiredUrl('SVC_DATABASE_URL', ['postgres:', 'postgresql:'], 'the internal PostgreSQL store (may be a PgBouncer in transaction pooling: see SVC_DATABASE_DIRECT_URL and SVC_DATABASE_PREPARE)', 'required');

export const storeSettings = {
  databaseUrl,
  databaseDirectUrl: setting<string>({
    env: 'SVC_DATABASE_DIRECT_URL',
    description: 'a direct (session) connection to the same PostgreSQL, for what needs a session: the notifications that wake the event relay (LISTEN) and migrations; set it when SVC_DATABASE_URL goes through a pooler in transaction mode (PgBouncer)',
    default: 'SVC_DATABASE_URL',
    parse: (v, ctx) => (v === undefined ? ctx.valueOf(databaseUrl) : checkUrl(ctx, v, ['postgres:', 'postgresql:'])),
  }),
  databasePrepare: setting<boolean>({
    env: 'SVC_DATABASE_PREPARE',
    description: 'true: the store uses named prepared statements; false: none at all (needed through PgBouncer before 1.21 in transaction pooling, or 1.21+ without max_prepared_statements)',
    default: 'true',
    parse(v, ctx) {
      if (v === undefined) return true;
      if (v !== 'true' && v !== 'false') ctx.fail('must be true or false');
      return v === 'true';
    },
  }),
  storeTimeoutSeconds: integer('SVC_STORE_TIMEOUT_SECONDS', { fallback: 30, min: 1, max: 3600 },
    'longest a statement on the internal store may run or wait for a lock; past it the request answers 503'),
  eventsRetentionHours: integer('SVC_EVENTS_RETENTION_HOURS', { fallback: 24, min: 1, max: 24 * 90 },
    'hours the store keeps change events for clients that resume the event stream (Last-Event-ID); an older resume gets a reset event'),
  storeLockSeconds: integer('SVC_STORE_LOCK_SECONDS', { fallback: 5, min: 1, max: 600 },
    'longest a transaction on the internal store may sit idle, or a statement wait for a row lock, before the store ends it: a frozen process never holds rows (due reports, say) longer'),
};
