/** me operations: the caller's profile and sessions. */
import type { Handler } from '../types.js';
import type { UsersService } from '../../domain/identity/users-service.js';
import type { SessionsService } from '../../domain/identity/sessions-service.js';
import { actorOf, clearedCookies, meView, principalOf, sessionOf } from './views.js';

type Deps = { users: UsersService; sessions: SessionsService };

export const getMe = (d: Deps): Handler<'getMe'> => async (req) =>
  ({ status: 200, body: meView(await d.users.get(principalOf(req.ctx).user.id)) });

export const updateMe = (d: Deps): Handler<'updateMe'> => async (req) => {
  const row = await d.users.updateMe(sessionOf(req.ctx).userId, req.body);
  return { status: 200, body: meView(row) };
};

export const listMySessions = (d: Deps): Handler<'listMySessions'> => async (req) => {
  const s = sessionOf(req.ctx);
  const rows = await d.sessions.list(s.userId);
  return {
    status: 200,
    body: {
      items: rows.map((r) => ({
        id: r.id, created_at: r.createdAt.toISOString(), last_seen_at: r.lastSeenAt.toISOString(),
        expires_at: r.expiresAt.toISOString(), ip: r.ip, user_agent: r.userAgent,
        method: r.method as 'password' | 'setup' | 'passkey' | 'oidc', current: r.id === s.sessionId,
      })),
    },
  };
};

export const revokeMySession = (d: Deps): Handler<'revokeMySession'> => async (req) => {
  const s = sessionOf(req.ctx);
  await d.sessions.revoke(s.userId, req.params.sessionId, actorOf(req.ctx));
  return { status: 204, body: undefined, cookies: req.params.sessionId === s.sessionId ? clearedCookies : [] };
};

export const revokeAllMySessions = (d: Deps): Handler<'revokeAllMySessions'> => async (req) => {
  await d.sessions.revokeAll(sessionOf(req.ctx).userId, actorOf(req.ctx));
  return { status: 204, body: undefined, cookies: clearedCookies };
};
