import type { Handler } from '../types.js';
import { workspaceSettingsView } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'workspaceSettings'>;

export const getSettings = (d: Deps): Handler<'getSettings'> => async () =>
  ({ status: 200, body: workspaceSettingsView(await d.workspaceSettings.get()) });
