import type { Handler } from '../types.js';
import { deviceCookie } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'passwords'>;

export const confirmPasswordReset = (d: Deps): Handler<'confirmPasswordReset'> => async (req) => {
  const { device } = await d.passwords.confirmPasswordReset(req.body, requestMeta(req.ctx));
  return { status: 204, body: undefined, cookies: [deviceCookie(device)] };
};
