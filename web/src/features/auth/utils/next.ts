/**
 * Where the app goes after a sign-in step: only paths of this app (`next` never leads to another
 * site), through the pages the server asks for first (a new password, then a second factor).
 */

/** `next` when it is a path of this app, else the home page. */
export function safeNext(next: string | null | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** What a sign-in answered that decides the next page (SignedIn of the contract). */
export interface SignInOutcome {
  user: { must_change_password: boolean };
  must_enrol_second_factor?: boolean | undefined;
}

const via = (page: string, next: string) => (next === '/' ? page : `${page}?next=${encodeURIComponent(next)}`);

/**
 * The page after a completed sign-in: the page asked for, after enrolling a second factor when
 * the workspace requires one, after choosing a new password when the current one is temporary.
 */
export function afterSignIn(outcome: SignInOutcome, next: string | null | undefined): string {
  let target = safeNext(next);
  if (outcome.must_enrol_second_factor) target = via('/enrol-second-factor', target);
  if (outcome.user.must_change_password) target = via('/change-password', target);
  return target;
}

/** The address of the single sign-on flow, coming back to `next`. */
export const ssoLoginUrl = (next: string | null | undefined): string =>
  `/api/v1/auth/oidc/login?return_to=${encodeURIComponent(safeNext(next))}`;
