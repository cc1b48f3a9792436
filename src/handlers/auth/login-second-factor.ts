import type { Handler } from '../types.js';
import { signedInAnswer } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { browserProof, requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'signIn'>;

export const loginSecondFactor = (d: Deps): Handler<'loginSecondFactor'> => async (req) => {
  const b = req.body;
  const signedIn = await d.signIn.secondFactor(
    { ticket: b.ticket, method: b.method, code: b.code, credential: b.credential as Record<string, unknown> | undefined },
    requestMeta(req.ctx), browserProof(req.ctx),
  );
  return signedInAnswer(signedIn);
};
