import type { Handler } from '../types.js';
import { linkView } from '../link-views.js';
import { pageQuery } from '../request-helpers.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'links'>;

/** GET /links: newest first, with status. */
export const listLinks = (d: Deps): Handler<'listLinks'> => async (req) => {
  const p = await d.links.list({ status: req.query.status, runId: req.query.run_id }, pageQuery(req.query));
  return { status: 200, body: { ...p, items: p.items.map(linkView) } };
};
