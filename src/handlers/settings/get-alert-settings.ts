import type { Handler } from '../types.js';
import { alertSettingsView } from '../alert-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'alertSettings' | 'operations'>;

export const getAlertSettings = (d: Deps): Handler<'getAlertSettings'> => async () => {
  const [settings, status] = await Promise.all([d.alertSettings.get(), d.operations.status()]);
  return { status: 200, body: alertSettingsView(settings, status) };
};
