import type { Handler } from '../types.js';
import { downloadView, linkView } from '../link-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'links'>;

/** GET /links/{linkId}: with its latest downloads. */
export const getLink = (d: Deps): Handler<'getLink'> => async (req) => {
  const link = await d.links.get(req.params.linkId);
  return { status: 200, body: { ...linkView(link), downloads: link.downloads.map(downloadView) } };
};
