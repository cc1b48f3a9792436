import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'passwords'>;

export const requestPasswordReset = (d: Deps): Handler<'requestPasswordReset'> => async (req) => {
  await d.passwords.requestPasswordReset(req.body.email, requestMeta(req.ctx));
  return { status: 202, body: undefined };
};
