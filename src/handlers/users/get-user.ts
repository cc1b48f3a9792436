import type { Handler } from '../types.js';
import { isAdmin, principalOf, userView } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'users'>;

export const getUser = (d: Deps): Handler<'getUser'> => async (req) => {
  const row = await d.users.get(req.params.userId);
  return { status: 200, body: userView(row, isAdmin(req.ctx) || row.id === principalOf(req.ctx).user.id) };
};
