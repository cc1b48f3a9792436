import type { Handler } from '../types.js';
import { passkeyView, sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'passkeys'>;

export const renameMyPasskey = (d: Deps): Handler<'renameMyPasskey'> => async (req) => {
  const passkey = await d.passkeys.rename(sessionOf(req.ctx).userId, req.params.passkeyId, req.body.name, requestMeta(req.ctx));
  return { status: 200, body: passkeyView(passkey) };
};
