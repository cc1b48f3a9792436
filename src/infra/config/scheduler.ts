/** The scheduler role. */
import { integer } from './schema.js';

export const schedulerSettings = {
  schedulerTickSeconds: integer('SVC_SCHEDULER_TICK_SECONDS', { fallback: 5, min: 1, max: 60 },
    'scheduler tick interval (readiness wants a tick within three)'),
};
