import type { Handler } from '../types.js';
import { previewView } from '../data-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'preview'>;

export const previewQuery = (d: Deps): Handler<'previewQuery'> => async (req) => {
  const p = await d.preview.preview({
    queryId: req.body.query_id, connectionId: req.body.connection_id, sql: req.body.sql, parameters: req.body.parameters,
    limit: req.body.limit, timeoutSeconds: req.body.timeout_seconds,
  }, req.ctx.signal);
  return { status: 200, body: previewView(p) };
};
