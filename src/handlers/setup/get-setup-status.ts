import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'setup'>;

export const getSetupStatus = (d: Deps): Handler<'getSetupStatus'> => async () =>
  ({ status: 200, body: { needs_setup: await d.setup.needsSetup() } });
