/** setup and auth operations: thin adapters over the auth service. */
import type { Handler } from '../types.js';
import type { AuthService } from '../../domain/identity/auth-service.js';
import { clearedCookies, meView, sessionCookies, sessionOf } from './views.js';

type Deps = { auth: AuthService };
const metaOf = (ctx: { ip: string; userAgent: string | undefined }) => ({ ip: ctx.ip, userAgent: ctx.userAgent });

export const getSetupStatus = (d: Deps): Handler<'getSetupStatus'> => async () =>
  ({ status: 200, body: { needs_setup: await d.auth.needsSetup() } });

export const runSetup = (d: Deps): Handler<'runSetup'> => async (req) => {
  const { user, session } = await d.auth.setup(req.body, metaOf(req.ctx));
  return {
    status: 201,
    body: { status: 'signed_in', user: meView(user), csrf_token: session.csrfToken },
    cookies: sessionCookies(session),
  };
};

export const login = (d: Deps): Handler<'login'> => async (req) => {
  const { user, session } = await d.auth.login(req.body, metaOf(req.ctx), req.ctx.sessionToken);
  return {
    status: 200,
    body: { status: 'signed_in', user: meView(user), csrf_token: session.csrfToken },
    cookies: sessionCookies(session),
  };
};

export const logout = (d: Deps): Handler<'logout'> => async (req) => {
  const s = sessionOf(req.ctx);
  await d.auth.logout(s.userId, s.sessionId, s.token, metaOf(req.ctx));
  return { status: 204, body: undefined, cookies: clearedCookies };
};

export const requestPasswordReset = (d: Deps): Handler<'requestPasswordReset'> => async (req) => {
  await d.auth.requestPasswordReset(req.body.email, metaOf(req.ctx));
  return { status: 202, body: undefined };
};

export const confirmPasswordReset = (d: Deps): Handler<'confirmPasswordReset'> => async (req) => {
  await d.auth.confirmPasswordReset(req.body, metaOf(req.ctx));
  return { status: 204, body: undefined };
};

export const changeMyPassword = (d: Deps): Handler<'changeMyPassword'> => async (req) => {
  const s = sessionOf(req.ctx);
  await d.auth.changePassword(s.userId, s.sessionId, {
    currentPassword: req.body.current_password, newPassword: req.body.new_password,
  }, metaOf(req.ctx));
  return { status: 204, body: undefined };
};
