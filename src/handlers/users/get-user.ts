import type { Handler } from '../types.js';
import { principalOf, USER_VIEW, userView } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { callerOf, shownOne, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'users' | 'stamps' | 'answers'>;

export const getUser = (d: Deps): Handler<'getUser'> => async (req) => {
  const id = req.params.userId;
  return stampedRead(req.headers['if-none-match'], ['getUser', USER_VIEW, callerOf(req.ctx), id], () => d.stamps.one('user', id),
    async () => userView(await d.users.get(id), principalOf(req.ctx)), shownOne, d.answers);
};
