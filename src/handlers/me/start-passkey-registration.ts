import type { Handler } from '../types.js';
import { sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'passkeys'>;

export const startPasskeyRegistration = (d: Deps): Handler<'startPasskeyRegistration'> => async (req) => {
  const { options, expiresAt } = await d.passkeys.registrationOptions(sessionOf(req.ctx).userId);
  return { status: 200, body: { options, expires_at: expiresAt.toISOString() } };
};
