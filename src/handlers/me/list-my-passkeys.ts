import type { Handler } from '../types.js';
import { passkeyView, sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'passkeys'>;

export const listMyPasskeys = (d: Deps): Handler<'listMyPasskeys'> => async (req) => {
  const rows = await d.passkeys.list(sessionOf(req.ctx).userId);
  return { status: 200, body: { items: rows.map(passkeyView) } };
};
