import type { Handler } from '../types.js';
import { sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'twoFactor'>;

export const confirmTotpSetup = (d: Deps): Handler<'confirmTotpSetup'> => async (req) => {
  const codes = await d.twoFactor.confirm(sessionOf(req.ctx).userId, req.body.code, requestMeta(req.ctx));
  return { status: 200, headers: { 'cache-control': 'no-store' }, body: { recovery_codes: codes } };
};
