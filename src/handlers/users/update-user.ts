import type { Handler } from '../types.js';
import { actorOf, userView } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'users'>;

export const updateUser = (d: Deps): Handler<'updateUser'> => async (req) =>
  ({ status: 200, body: userView(await d.users.update(req.params.userId, req.body, actorOf(req.ctx)), req.ctx.principal) });
