import type { Handler } from '../types.js';
import { actorOf, userView } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'users'>;

export const createUser = (d: Deps): Handler<'createUser'> => async (req) => {
  const { user, generatedPassword } = await d.users.create({
    name: req.body.name, email: req.body.email, role: req.body.role, temporaryPassword: req.body.temporary_password,
  }, actorOf(req.ctx));
  const body = generatedPassword === undefined
    ? { user: userView(user, req.ctx.principal) }
    : { user: userView(user, req.ctx.principal), temporary_password: generatedPassword };
  return { status: 201, body };
};
