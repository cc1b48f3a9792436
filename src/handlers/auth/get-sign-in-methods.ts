import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'workspaceSettings'>;

/** GET /auth/methods: what the sign-in page offers, public. */
export const getSignInMethods = (d: Deps): Handler<'getSignInMethods'> => async () => {
  const m = await d.workspaceSettings.signInMethods();
  return {
    status: 200,
    body: { password_sign_in: m.passwordSignIn, single_sign_on: { enabled: m.singleSignOn.enabled, button_label: m.singleSignOn.buttonLabel } },
  };
};
