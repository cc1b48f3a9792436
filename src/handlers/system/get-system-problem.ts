import type { Handler } from '../types.js';
import { problemView } from '../alert-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'operations'>;

/** GET /system/problems/{problemId}: the problem and the alerts sent about it. */
export const getSystemProblem = (d: Deps): Handler<'getSystemProblem'> => async (req) => {
  const { problem, alerts } = await d.operations.getProblem(req.params.problemId);
  return {
    status: 200,
    body: {
      problem: problemView(problem),
      alerts: alerts.filter((a) => a.event !== 'test').map((a) => ({
        event: a.event as 'opened' | 'repeated' | 'resolved', channel_id: a.channelId, fallback: a.fallback, status: a.status, error: a.error, at: a.createdAt.toISOString(),
      })),
    },
  };
};
