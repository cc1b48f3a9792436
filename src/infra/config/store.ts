/** The internal PostgreSQL store. */
import { integer, requiredUrl } from './schema.js';

export const storeSettings = {
  databaseUrl: requiredUrl('SVC_DATABASE_URL', ['postgres:', 'postgresql:'], 'the internal PostgreSQL store', 'required'),
  storeTimeoutSeconds: integer('SVC_STORE_TIMEOUT_SECONDS', { fallback: 30, min: 1, max: 3600 },
    'longest a statement on the internal store may run or wait for a lock; past it the request answers 503'),
  eventsRetentionHours: integer('SVC_EVENTS_RETENTION_HOURS', { fallback: 24, min: 1, max: 24 * 90 },
    'hours the store keeps change events for clients that resume the event stream (Last-Event-ID); an older resume gets a reset event'),
  storeLockSeconds: integer('SVC_STORE_LOCK_SECONDS', { fallback: 5, min: 1, max: 600 },
    'longest a transaction on the internal store may sit idle, or a statement wait for a row lock, before the store ends it: a frozen process never holds rows (due reports, say) longer'),
};
