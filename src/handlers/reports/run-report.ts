import type { Handler } from '../types.js';
import { runView } from '../run-views.js';
import { principalOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'runs'>;

/** POST /reports/{reportId}/run: queues a manual run (202); an Idempotency-Key repeat answers the first run. */
export const runReport = (d: Deps): Handler<'runReport'> => async (req) => {
  const run = await d.runs.queue({
    reportId: req.params.reportId, trigger: 'manual', deliver: req.body?.deliver ?? true,
    userId: principalOf(req.ctx).user.id, idempotencyKey: req.headers['idempotency-key'],
  });
  return { status: 202, body: runView(run, await d.runs.attemptsOf(run)) };
};
