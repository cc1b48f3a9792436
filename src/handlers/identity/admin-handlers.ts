/** users, api-keys and security-events operations. */
import type { Handler } from '../types.js';
import type { UsersService } from '../../domain/identity/users-service.js';
import type { ApiKeysService } from '../../domain/identity/api-keys-service.js';
import { listSecurityEvents as listEvents } from '../../domain/identity/security-events.js';
import type { Db } from '../../infra/db/client.js';
import { actorOf, apiKeyView, isAdmin, principalOf, securityEventView, userView } from './views.js';

type Deps = { users: UsersService; apiKeys: ApiKeysService; db: Db };
const page = (q: { limit?: number; cursor?: string }) => ({ limit: q.limit ?? 50, ...(q.cursor ? { cursor: q.cursor } : {}) });

export const listUsers = (d: Deps): Handler<'listUsers'> => async (req) => {
  const p = await d.users.list(page(req.query));
  const admin = isAdmin(req.ctx);
  return { status: 200, body: { ...p, items: p.items.map((u) => userView(u, admin)) } };
};

export const getUser = (d: Deps): Handler<'getUser'> => async (req) => {
  const row = await d.users.get(req.params.userId);
  return { status: 200, body: userView(row, isAdmin(req.ctx) || row.id === principalOf(req.ctx).user.id) };
};

export const createUser = (d: Deps): Handler<'createUser'> => async (req) => {
  const { user, generatedPassword } = await d.users.create({
    name: req.body.name, email: req.body.email, role: req.body.role, temporaryPassword: req.body.temporary_password,
  }, actorOf(req.ctx));
  const body = generatedPassword === undefined
    ? { user: userView(user, true) }
    : { user: userView(user, true), temporary_password: generatedPassword };
  return { status: 201, body };
};

export const updateUser = (d: Deps): Handler<'updateUser'> => async (req) =>
  ({ status: 200, body: userView(await d.users.update(req.params.userId, req.body, actorOf(req.ctx)), true) });

export const resetUserPassword = (d: Deps): Handler<'resetUserPassword'> => async (req) => {
  const password = await d.users.resetPassword(req.params.userId, req.body?.temporary_password, actorOf(req.ctx));
  return { status: 200, body: { temporary_password: password } };
};

export const listApiKeys = (d: Deps): Handler<'listApiKeys'> => async (req) => {
  const p = await d.apiKeys.list({ ...page(req.query), ...(req.query.owner_id ? { ownerId: req.query.owner_id } : {}) });
  return { status: 200, body: { ...p, items: p.items.map(apiKeyView) } };
};

export const createApiKey = (d: Deps): Handler<'createApiKey'> => async (req) => {
  const { row, token } = await d.apiKeys.create({
    name: req.body.name,
    scope: req.body.scope,
    ownerId: req.body.owner_id ?? principalOf(req.ctx).user.id,
    ...(req.body.expires_at ? { expiresAt: new Date(req.body.expires_at) } : {}),
  }, actorOf(req.ctx));
  return { status: 201, body: { key: apiKeyView(row), token } };
};

export const revokeApiKey = (d: Deps): Handler<'revokeApiKey'> => async (req) =>
  ({ status: 200, body: apiKeyView(await d.apiKeys.revoke(req.params.apiKeyId, actorOf(req.ctx))) });

export const listSecurityEvents = (d: Deps): Handler<'listSecurityEvents'> => async (req) => {
  const p = await listEvents(d.db, {
    ...page(req.query),
    ...(req.query.type ? { type: req.query.type } : {}),
    ...(req.query.user_id ? { userId: req.query.user_id } : {}),
  });
  return { status: 200, body: { ...p, items: p.items.map(securityEventView) } };
};
