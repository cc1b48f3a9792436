import type { Handler } from '../types.js';
import { deliveryView } from '../channel-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'deliveries'>;

export const listDeliveries = (d: Deps): Handler<'listDeliveries'> => async (req) =>
  ({ status: 200, body: { items: (await d.deliveries.list(req.params.reportId)).map(deliveryView) } });
