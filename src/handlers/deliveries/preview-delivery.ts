import type { Handler } from '../types.js';
import { renderedView } from '../run-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'deliveries'>;

/** POST /deliveries/preview: a delivery's message rendered with the latest result or sample data. */
export const previewDelivery = (d: Deps): Handler<'previewDelivery'> => async (req) => {
  const p = await d.deliveries.preview({
    reportId: req.body.report_id, deliveryId: req.body.delivery_id, channelId: req.body.channel_id, settings: req.body.settings,
  });
  return { status: 200, body: { ...renderedView(p), source: p.source, run_id: p.runId, channel_type: p.channelType, recipients: p.recipients } };
};
