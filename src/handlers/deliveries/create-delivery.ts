import type { Handler } from '../types.js';
import { deliveryView } from '../channel-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'deliveries'>;

export const createDelivery = (d: Deps): Handler<'createDelivery'> => async (req) => {
  const row = await d.deliveries.create(req.params.reportId,
    { channelId: req.body.channel_id, position: req.body.position, settings: req.body.settings }, actorOf(req.ctx));
  return { status: 201, body: deliveryView(row) };
};
