import type { Handler } from '../types.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'users'>;

export const resetUserPassword = (d: Deps): Handler<'resetUserPassword'> => async (req) => {
  const password = await d.users.resetPassword(req.params.userId, req.body?.temporary_password, actorOf(req.ctx));
  return { status: 200, body: { temporary_password: password } };
};
