import type { Handler } from '../types.js';
import { actorOf, workspaceSettingsView } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'workspaceSettings'>;

export const updateSettings = (d: Deps): Handler<'updateSettings'> => async (req) => {
  const b = req.body;
  const settings = await d.workspaceSettings.update({
    version: b.version, requireSecondFactor: b.require_second_factor, passwordSignIn: b.password_sign_in,
  }, actorOf(req.ctx));
  return { status: 200, body: workspaceSettingsView(settings) };
};
