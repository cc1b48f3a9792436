import type { Handler } from '../types.js';
import { meView, sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'users'>;

export const updateMe = (d: Deps): Handler<'updateMe'> => async (req) => {
  const row = await d.users.updateMe(sessionOf(req.ctx).userId, req.body);
  return { status: 200, body: meView(row) };
};
