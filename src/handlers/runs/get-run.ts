import type { Handler } from '../types.js';
import { runView } from '../run-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'runs'>;

/** GET /runs/{runId}: with steps, parameters, condition and sample. */
export const getRun = (d: Deps): Handler<'getRun'> => async (req) => {
  const run = await d.runs.get(req.params.runId);
  return { status: 200, body: runView(run, await d.runs.attemptsOf(run)) };
};
