import type { Handler } from '../types.js';
import { meView, principalOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'users'>;

export const getMe = (d: Deps): Handler<'getMe'> => async (req) =>
  ({ status: 200, body: meView(await d.users.get(principalOf(req.ctx).user.id)) });
