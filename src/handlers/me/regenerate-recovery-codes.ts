import type { Handler } from '../types.js';
import { sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'twoFactor'>;

export const regenerateRecoveryCodes = (d: Deps): Handler<'regenerateRecoveryCodes'> => async (req) => {
  const codes = await d.twoFactor.replaceRecoveryCodes(sessionOf(req.ctx).userId, req.body, requestMeta(req.ctx));
  return { status: 200, headers: { 'cache-control': 'no-store' }, body: { recovery_codes: codes } };
};
