import type { Handler } from '../types.js';
import { pageQuery } from '../request-helpers.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'retries'>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** GET /channels/{id}/attempts: the channel's delivery attempts, newest first. */
export const listChannelAttempts = (d: Deps): Handler<'listChannelAttempts'> => async (req) => {
  const p = await d.retries.attemptsOfChannel(req.params.channelId, pageQuery(req.query));
  return {
    status: 200,
    body: {
      ...p,
      items: p.items.map((a) => ({
        id: a.id, run_id: a.runId, report_id: a.reportId, report_title: a.reportTitle, trigger: a.trigger,
        status: a.status, sends: a.sends, status_code: a.statusCode, error: a.error,
        next_retry_at: iso(a.nextRetryAt), created_at: a.createdAt.toISOString(), finished_at: iso(a.finishedAt),
      })),
    },
  };
};
