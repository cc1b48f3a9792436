import type { Handler } from '../types.js';
import { actorOf, clearedCookies, sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'sessions'>;

export const revokeMySession = (d: Deps): Handler<'revokeMySession'> => async (req) => {
  const s = sessionOf(req.ctx);
  await d.sessions.revoke(s.userId, req.params.sessionId, actorOf(req.ctx));
  return { status: 204, body: undefined, cookies: req.params.sessionId === s.sessionId ? clearedCookies : [] };
};
