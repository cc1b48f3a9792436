import type { Handler } from '../types.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'deliveries'>;

export const deleteDelivery = (d: Deps): Handler<'deleteDelivery'> => async (req) => {
  await d.deliveries.delete(req.params.reportId, req.params.deliveryId, actorOf(req.ctx));
  return { status: 204, body: undefined };
};
