import type { Handler } from '../types.js';
import { linkView } from '../link-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'links'>;

/** POST /links: the token and url appear only in this answer. */
export const createLink = (d: Deps): Handler<'createLink'> => async (req) => {
  const made = await d.links.create({ runId: req.body.run_id, format: req.body.format, expiresInDays: req.body.expires_in_days }, actorOf(req.ctx));
  return { status: 201, body: { ...linkView(made.link), token: made.token, url: made.url } };
};
