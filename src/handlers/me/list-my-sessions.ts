import type { Handler } from '../types.js';
import { sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'sessions'>;

export const listMySessions = (d: Deps): Handler<'listMySessions'> => async (req) => {
  const s = sessionOf(req.ctx);
  const rows = await d.sessions.list(s.userId);
  return {
    status: 200,
    body: {
      items: rows.map((r) => ({
        id: r.id, created_at: r.createdAt.toISOString(), last_seen_at: r.lastSeenAt.toISOString(),
        expires_at: r.expiresAt.toISOString(), ip: r.ip, user_agent: r.userAgent,
        method: r.method as 'password' | 'setup' | 'passkey' | 'oidc',
        second_factor: r.secondFactor as 'totp' | 'recovery_code' | 'passkey' | null, current: r.id === s.sessionId,
      })),
    },
  };
};
