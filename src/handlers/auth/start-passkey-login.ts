import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'signIn'>;

export const startPasskeyLogin = (d: Deps): Handler<'startPasskeyLogin'> => async (req) => {
  const { options, expiresAt } = await d.signIn.passkeyOptions(requestMeta(req.ctx));
  return { status: 200, body: { options, expires_at: expiresAt.toISOString() } };
};
