import type { Handler } from '../types.js';
import { sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'twoFactor'>;

export const startTotpSetup = (d: Deps): Handler<'startTotpSetup'> => async (req) => {
  const setup = await d.twoFactor.startSetup(sessionOf(req.ctx).userId, requestMeta(req.ctx));
  return {
    status: 200,
    headers: { 'cache-control': 'no-store' },
    body: { secret: setup.secret, otpauth_uri: setup.otpauthUri, qr_code: setup.qrCode },
  };
};
