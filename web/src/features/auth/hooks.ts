/**
 * The sign-in steps as mutations (one hook each), and what follows a completed sign-in: the user
 * fetched again, then the page the person was headed for (through a new password or a second
 * factor first when the server asks for them).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notify } from './utils/notify';
import { useNavigate, useSearchParams } from 'react-router';
import type { Schemas } from '@herald/sdk';
import { api, HeraldError } from '../../api/client';
import { keys } from '../../api/keys';
import { SESSION_ENDED } from '../../api/session';
import { languageOf, translator } from '../../i18n';
import { afterSignIn, ssoLoginUrl } from './utils/next';
import { signWithPasskey } from './utils/webauthn';

export { safeNext } from './utils/next';

type SignedIn = Schemas['SignedIn'];

export function useSignedIn() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  return async (outcome?: SignedIn) => {
    sessionStorage.removeItem(SESSION_ENDED);
    client.removeQueries();
    const me = await client.fetchQuery({ queryKey: keys.me, queryFn: () => api.call('getMe') });
    const remaining = outcome?.recovery_codes_remaining;
    if (remaining !== undefined) {
      const t = translator(languageOf(me.preferences.locale));
      notify(t, t('auth.recovery.remaining', { count: remaining }), { color: remaining <= 3 ? 'orange' : 'blue', autoClose: 15_000, title: t('auth.recovery.used') });
    }
    await navigate(afterSignIn({ user: me, must_enrol_second_factor: outcome?.must_enrol_second_factor }, params.get('next')), { replace: true });
  };
}

export function useLogin() {
  return useMutation({ mutationFn: (body: Schemas['LoginRequest']) => api.call('login', { body }) });
}

/** The second step with a code: the authenticator app's or a recovery code. */
export function useSecondFactorCode() {
  return useMutation({
    mutationFn: (body: { ticket: string; method: 'totp' | 'recovery_code'; code: string }) => api.call('loginSecondFactor', { body }),
  });
}

/** The second step with a passkey: options for this sign-in's account, signed by the browser. */
export function useSecondFactorPasskey() {
  return useMutation({
    mutationFn: async (ticket: string) => {
      const { options } = await api.call('startSecondFactorPasskey', { body: { ticket } });
      const credential = await signWithPasskey(options);
      return api.call('loginSecondFactor', { body: { ticket, method: 'passkey', credential } });
    },
  });
}

/** Passwordless: the browser offers the passkeys it holds for this site; the passkey names its user. */
export function usePasskeySignIn() {
  return useMutation({
    mutationFn: async () => {
      const { options } = await api.call('startPasskeyLogin');
      const credential = await signWithPasskey(options);
      return api.call('finishPasskeyLogin', { body: { credential } });
    },
  });
}

/** What the sign-in page offers (GET /auth/methods, public): single sign-on and its label, who may use a password. */
export function useSignInMethods() {
  return useQuery({ queryKey: keys.signInMethods, queryFn: () => api.call('getSignInMethods'), staleTime: 60_000 });
}

/**
 * Single sign-on: the browser goes to GET /auth/oidc/login, which redirects to the identity
 * provider. The address is asked first without following the redirect (an admin may have turned
 * single sign-on off since the page loaded): a redirect means it is on (the browser then goes
 * there), a problem (oidc.disabled) is shown on the page instead of raw JSON.
 */
export function useSsoSignIn() {
  return useMutation({
    mutationFn: async (next: string | null) => {
      const url = ssoLoginUrl(next);
      const probe = await fetch(url, { redirect: 'manual', credentials: 'same-origin' });
      if (probe.type !== 'opaqueredirect' && !(probe.status >= 300 && probe.status < 400)) throw await HeraldError.from(probe);
      window.location.assign(url);
      // The page is leaving: stay pending so the button keeps its spinner.
      await new Promise<never>(() => undefined);
    },
  });
}

export function useRequestPasswordReset() {
  return useMutation({ mutationFn: (email: string) => api.call('requestPasswordReset', { body: { email } }) });
}
