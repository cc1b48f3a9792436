/**
 * The workspace settings object (GET/PATCH /settings): the sign-in policy. A second factor can be
 * required for every password sign-in; password sign-in can be limited to admins, which may be
 * chosen only while single sign-on is on, and applies only while it is (so turning single
 * sign-on off never locks anyone out).
 */
import type { Clock } from '../../core/clock.js';
import { validationFailed } from '../../core/errors.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import type { IdentityStore, SettingsRepo } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

export type PasswordSignIn = 'everyone' | 'admins_only';

export interface WorkspaceSettings {
  requireSecondFactor: boolean;
  passwordSignIn: PasswordSignIn;
  version: number;
  /** Null until the settings are first saved. */
  updatedAt: Date | null;
}

export const WORKSPACE_KEY = 'workspace';
export const OIDC_KEY = 'oidc';
/** The sign-in page's single sign-on button until an admin names it. */
export const DEFAULT_SSO_BUTTON_LABEL = 'Sign in with single sign-on';

export async function readWorkspaceSettings(repo: SettingsRepo): Promise<WorkspaceSettings> {
  const row = await repo.get(WORKSPACE_KEY);
  const v = row?.value ?? {};
  return {
    requireSecondFactor: v.require_second_factor === true,
    passwordSignIn: v.password_sign_in === 'admins_only' ? 'admins_only' : 'everyone',
    version: row?.version ?? 1,
    updatedAt: row?.updatedAt ?? null,
  };
}

/** Single sign-on is on (its settings say enabled). */
export async function oidcEnabled(repo: SettingsRepo): Promise<boolean> {
  return (await repo.get(OIDC_KEY))?.value.enabled === true;
}

/** Whether a user of this role may sign in with a password now. */
export async function passwordSignInAllowed(repo: SettingsRepo, role: string, settings?: WorkspaceSettings): Promise<boolean> {
  const s = settings ?? await readWorkspaceSettings(repo);
  if (s.passwordSignIn !== 'admins_only' || role === 'admin') return true;
  return !(await oidcEnabled(repo));
}

export function createWorkspaceSettingsService(deps: { store: Pick<IdentityStore, 'settings' | 'events'>; uow: UnitOfWork; clock: Clock }) {
  const { store, clock } = deps;
  return {
    get: () => readWorkspaceSettings(store.settings),

    /** What a sign-in page offers (GET /auth/methods, public): no secret, no provider address. */
    async signInMethods(): Promise<{ passwordSignIn: PasswordSignIn; singleSignOn: { enabled: boolean; buttonLabel: string } }> {
      const [settings, oidc] = await Promise.all([readWorkspaceSettings(store.settings), store.settings.get(OIDC_KEY)]);
      const enabled = oidc?.value.enabled === true;
      const label = typeof oidc?.value.button_label === 'string' && oidc.value.button_label.trim() ? oidc.value.button_label : DEFAULT_SSO_BUTTON_LABEL;
      return { passwordSignIn: enabled ? settings.passwordSignIn : 'everyone', singleSignOn: { enabled, buttonLabel: label } };
    },

    async update(input: { version: number; requireSecondFactor?: boolean | undefined; passwordSignIn?: PasswordSignIn | undefined }, actor: Actor): Promise<WorkspaceSettings> {
      return deps.uow.run(async (tx) => {
        const current = await readWorkspaceSettings(tx.workspaceSettings);
        const next = {
          require_second_factor: input.requireSecondFactor ?? current.requireSecondFactor,
          password_sign_in: input.passwordSignIn ?? current.passwordSignIn,
        };
        if (next.password_sign_in === 'admins_only' && current.passwordSignIn !== 'admins_only' && !(await oidcEnabled(tx.workspaceSettings))) {
          throw validationFailed([{
            field: 'password_sign_in', code: 'validation.invalid',
            message: 'can be admins_only only while single sign-on is on (PUT /api/v1/settings/oidc with enabled true)',
          }]);
        }
        const now = clock.now();
        await tx.workspaceSettings.put(WORKSPACE_KEY, input.version, next, null, now);
        await recordSecurityEvent(tx.securityEvents, {
          type: 'settings.updated', actor,
          details: { settings: WORKSPACE_KEY, require_second_factor: next.require_second_factor, password_sign_in: next.password_sign_in },
        }, clock);
        return readWorkspaceSettings(tx.workspaceSettings);
      });
    },
  };
}

export type WorkspaceSettingsService = ReturnType<typeof createWorkspaceSettingsService>;
