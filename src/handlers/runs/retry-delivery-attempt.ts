import type { Handler } from '../types.js';
import { attemptView } from '../run-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'retries'>;

/** POST /runs/{runId}/attempts/{attemptId}/retry: 202 queued, or 200 when already sent or on its way. */
export const retryDeliveryAttempt = (d: Deps): Handler<'retryDeliveryAttempt'> => async (req) => {
  const { attempt, queued } = await d.retries.retryAttempt(req.params.runId, req.params.attemptId);
  return queued ? { status: 202, body: attemptView(attempt) } : { status: 200, body: attemptView(attempt) };
};
