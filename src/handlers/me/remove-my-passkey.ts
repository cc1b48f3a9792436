import type { Handler } from '../types.js';
import { sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'passkeys'>;

export const removeMyPasskey = (d: Deps): Handler<'removeMyPasskey'> => async (req) => {
  await d.passkeys.remove(sessionOf(req.ctx).userId, req.params.passkeyId, requestMeta(req.ctx));
  return { status: 204 };
};
