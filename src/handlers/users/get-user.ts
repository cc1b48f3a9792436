import type { Handler } from '../types.js';
import { principalOf, userView } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'users'>;

export const getUser = (d: Deps): Handler<'getUser'> => async (req) => {
  const row = await d.users.get(req.params.userId);
  return { status: 200, body: userView(row, principalOf(req.ctx)) };
};
