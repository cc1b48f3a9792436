import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'signIn'>;

export const startSecondFactorPasskey = (d: Deps): Handler<'startSecondFactorPasskey'> => async (req) => {
  const { options, expiresAt } = await d.signIn.secondFactorPasskeyOptions(req.body.ticket, requestMeta(req.ctx));
  return { status: 200, body: { options, expires_at: expiresAt.toISOString() } };
};
