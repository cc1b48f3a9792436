import type { Handler } from '../types.js';
import { alertTestView } from '../alert-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'operations'>;

export const testAlertSettings = (d: Deps): Handler<'testAlertSettings'> => async () =>
  ({ status: 200, body: alertTestView(await d.operations.test()) });
