import type { Handler } from '../types.js';
import { runView } from '../run-views.js';
import { principalOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'runs'>;

/** POST /reports/{reportId}/test-delivery: queues a run with trigger test, delivered only to the caller. */
export const testDeliverReport = (d: Deps): Handler<'testDeliverReport'> => async (req) => {
  const run = await d.runs.queue({ reportId: req.params.reportId, trigger: 'test', deliver: true, userId: principalOf(req.ctx).user.id });
  return { status: 202, body: runView(run, await d.runs.attemptsOf(run)) };
};
