import type { Handler } from '../types.js';
import { signedInAnswer } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { browserProof, requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'signIn'>;

export const finishPasskeyLogin = (d: Deps): Handler<'finishPasskeyLogin'> => async (req) => {
  const signedIn = await d.signIn.passkeySignIn(req.body.credential as Record<string, unknown>, requestMeta(req.ctx), browserProof(req.ctx));
  return signedInAnswer(signedIn);
};
