import type { Handler } from '../types.js';
import { attemptView } from '../run-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'retries'>;

/** POST /channels/{id}/retry-failed: queues a resend of the channel's failed attempts. */
export const retryFailedChannelDeliveries = (d: Deps): Handler<'retryFailedChannelDeliveries'> => async (req) => {
  const queued = await d.retries.retryFailedOfChannel(req.params.channelId);
  return { status: 202, body: { queued: queued.map(attemptView) } };
};
