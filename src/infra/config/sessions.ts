/** Browser sessions. */
import { integer } from './schema.js';

export const sessionSettings = {
  sessionIdleMinutes: integer('SVC_SESSION_IDLE_MINUTES', { fallback: 60 * 24, min: 5, max: 60 * 24 * 30 },
    'minutes without a request after which a session ends'),
  sessionMaxHours: integer('SVC_SESSION_MAX_HOURS', { fallback: 24 * 14, min: 1, max: 24 * 365 },
    'hours after sign-in at which a session ends, however active'),
};
