import type { Handler } from '../types.js';
import { RUN_VIEW, runView } from '../run-views.js';
import type { ApiServices } from '../services.js';
import { callerOf, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'runs' | 'stamps' | 'answers'>;

/** GET /runs/{runId}: with steps, parameters, condition and sample; tagged by the run's and its delivery attempts' rows. */
export const getRun = (d: Deps): Handler<'getRun'> => async (req) => {
  const id = req.params.runId;
  return stampedRead(req.headers['if-none-match'], ['getRun', RUN_VIEW, callerOf(req.ctx), id], () => d.stamps.run(id), async () => {
    // One statement: an attempt's end and the run's settling commit together, and are read together.
    const { run, attempts } = await d.runs.getWithAttempts(id);
    return runView(run, attempts);
  }, (body) => ({ ids: body.delivery_attempts.map((a) => a.id).sort(), marked: [], more: false }), d.answers);
};
