import type { Handler } from '../types.js';
import { deliveryView } from '../channel-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'deliveries'>;

export const replaceDelivery = (d: Deps): Handler<'replaceDelivery'> => async (req) => {
  const row = await d.deliveries.replace(req.params.reportId, req.params.deliveryId,
    { channelId: req.body.channel_id, position: req.body.position, settings: req.body.settings, version: req.body.version }, actorOf(req.ctx));
  return { status: 200, body: deliveryView(row) };
};
