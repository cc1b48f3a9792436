import type { Handler } from '../types.js';
import { runView } from '../run-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'runs'>;

/** POST /runs/{runId}/cancel: 200 when a pending run is cancelled, 202 while a running one stops. */
export const cancelRun = (d: Deps): Handler<'cancelRun'> => async (req) => {
  const { outcome, run, attempts } = await d.runs.cancel(req.params.runId);
  const body = runView(run, attempts);
  return outcome === 'cancelled' ? { status: 200, body } : { status: 202, body };
};
