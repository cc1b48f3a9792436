/** What the sign-in, setup and password services share: request facts, actors, the signed-in answer. */
import { validationFailed } from '../../core/errors.js';
import { passwordProblems } from '../identity/passwords.js';
import type { Actor } from '../audit/security-events.js';
import type { IssuedSession } from './sessions.js';
import { deviceCookieName, deviceTokenFor } from '../identity/tokens.js';
import type { User } from '../identity/model.js';

export interface RequestMeta {
  ip: string;
  userAgent: string | undefined;
}

export interface SignedIn {
  user: User;
  session: IssuedSession;
  /** A fresh svc_device_<account> cookie for this browser and account. */
  device: { name: string; token: string };
  /** The workspace requires a second factor this user must enrol before anything else. */
  mustEnrol?: boolean;
  /** After a recovery code: how many unused codes remain. */
  recoveryCodesRemaining?: number;
}

export const anonymous = (meta: RequestMeta): Actor => ({ type: 'anonymous', ip: meta.ip, userAgent: meta.userAgent });
export const asUser = (userId: string, meta: RequestMeta): Actor => ({ type: 'user', userId, ip: meta.ip, userAgent: meta.userAgent });

export function assertPassword(password: string, email: string | undefined, field: string): void {
  const problems = passwordProblems(password, email, field);
  if (problems.length > 0) throw validationFailed(problems, 'The password does not meet the policy');
}

/** This browser's svc_device cookie for the account (proof of a sign-in, bound to the password). */
export const deviceFor = (hmacKey: Buffer, user: User, now: Date) => ({ name: deviceCookieName(user.email), token: deviceTokenFor(hmacKey, user, now) });
