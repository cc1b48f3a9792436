import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'schedules'>;

/** POST /schedules/preview: a schedule's description and next times, strictly after `from` (default now). */
export const previewSchedule = (d: Deps): Handler<'previewSchedule'> => async (req) => {
  const { cron, timezone, count, from } = req.body;
  const p = d.schedules.preview({ cron, timezone, count, from: from === undefined ? undefined : new Date(from) });
  return { status: 200, body: { description: p.description, next: p.next.map((t) => t.toISOString()) } };
};
