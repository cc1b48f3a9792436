import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'auth'>;

export const getSetupStatus = (d: Deps): Handler<'getSetupStatus'> => async () =>
  ({ status: 200, body: { needs_setup: await d.auth.needsSetup() } });
