import type { Handler } from '../types.js';
import { principalOf, userView } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'users'>;

export const listUsers = (d: Deps): Handler<'listUsers'> => async (req) => {
  const p = await d.users.list(pageQuery(req.query));
  const viewer = principalOf(req.ctx);
  return { status: 200, body: { ...p, items: p.items.map((u) => userView(u, viewer)) } };
};
