import type { Handler } from '../types.js';
import { signedInAnswer } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { browserProof, requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'signIn'>;

export const login = (d: Deps): Handler<'login'> => async (req) => {
  const outcome = await d.signIn.login(req.body, requestMeta(req.ctx), browserProof(req.ctx));
  if (outcome.status === 'second_factor_required') {
    return { status: 200, body: { status: 'second_factor_required', ticket: outcome.ticket, methods: outcome.methods } };
  }
  return signedInAnswer(outcome);
};
