import type { Handler } from '../types.js';
import { passkeyView, sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'passkeys'>;

export const addMyPasskey = (d: Deps): Handler<'addMyPasskey'> => async (req) => {
  const passkey = await d.passkeys.add(sessionOf(req.ctx).userId, {
    name: req.body.name, credential: req.body.credential as Record<string, unknown>,
  }, requestMeta(req.ctx));
  return { status: 201, body: passkeyView(passkey) };
};
