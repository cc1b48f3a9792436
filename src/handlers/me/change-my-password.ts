import type { Handler } from '../types.js';
import { sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'passwords'>;

export const changeMyPassword = (d: Deps): Handler<'changeMyPassword'> => async (req) => {
  const s = sessionOf(req.ctx);
  await d.passwords.changePassword(s.userId, s.sessionId, {
    currentPassword: req.body.current_password, newPassword: req.body.new_password,
  }, requestMeta(req.ctx));
  return { status: 204, body: undefined };
};
