import type { Handler } from '../types.js';
import { linkView } from '../link-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'links'>;

export const revokeLink = (d: Deps): Handler<'revokeLink'> => async (req) =>
  ({ status: 200, body: linkView(await d.links.revoke(req.params.linkId, actorOf(req.ctx))) });
