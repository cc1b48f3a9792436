import type { Handler } from '../types.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'twoFactor'>;

export const disableUserTwoFactor = (d: Deps): Handler<'disableUserTwoFactor'> => async (req) => {
  await d.twoFactor.disableFor(req.params.userId, actorOf(req.ctx));
  return { status: 204 };
};
