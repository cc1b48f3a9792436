import type { Handler } from '../types.js';
import { sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'twoFactor'>;

export const disableMyTwoFactor = (d: Deps): Handler<'disableMyTwoFactor'> => async (req) => {
  await d.twoFactor.disable(sessionOf(req.ctx).userId, req.body, requestMeta(req.ctx));
  return { status: 204 };
};
