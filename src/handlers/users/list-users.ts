import type { Handler } from '../types.js';
import { principalOf, USER_VIEW, userView } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';
import { callerOf, shownPage, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'users' | 'stamps' | 'answers'>;

export const listUsers = (d: Deps): Handler<'listUsers'> => async (req) => {
  const q = pageQuery(req.query);
  return stampedRead(req.headers['if-none-match'], ['listUsers', USER_VIEW, callerOf(req.ctx), q.limit, q.cursor],
    () => d.stamps.page('user', q), async () => {
      const p = await d.users.list(q);
      const viewer = principalOf(req.ctx);
      return { ...p, items: p.items.map((u) => userView(u, viewer)) };
    }, shownPage, d.answers);
};
