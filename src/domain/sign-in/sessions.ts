/**
 * Browser sessions: a random token in the svc_session cookie, stored as a hash, with idle and
 * absolute expiry; the CSRF token is derived from it. Revocation takes effect on the next request.
 */
import { newId } from '../../core/ids.js';
import { csrfTokenFor, randomToken, tokenHash } from '../identity/tokens.js';
import type { PrincipalUser } from '../identity/principal.js';
import type { SecondFactor, SessionMethod } from '../identity/model.js';
import type { SessionsRepo } from '../identity/ports.js';

export type { SessionMethod };

export interface SessionPolicy {
  idleMinutes: number;
  maxHours: number;
  /** The HMAC key CSRF and device tokens are derived with. */
  secretKey: Buffer;
  /** Earlier HMAC keys (SVC_SECRET_KEY_PREVIOUS): tokens made under them still verify during a rotation. */
  previousSecretKeys?: Buffer[];
}

/** Every key a token may have been made under: the current one first. */
export const verifyingKeys = (policy: SessionPolicy): Buffer[] => [policy.secretKey, ...(policy.previousSecretKeys ?? [])];

export interface IssuedSession {
  id: string;
  token: string;
  csrfToken: string;
  maxAgeSeconds: number;
}

/** Sessions last seen before this moment are idle (expired). */
export const idleSince = (policy: SessionPolicy, now: Date) => new Date(now.getTime() - policy.idleMinutes * 60_000);

export async function issueSession(
  sessions: SessionsRepo, policy: SessionPolicy,
  input: {
    userId: string; method: SessionMethod; ip: string; userAgent?: string | undefined;
    secondFactor?: SecondFactor | undefined; mustEnrol?: boolean | undefined;
  }, now: Date,
): Promise<IssuedSession> {
  const token = randomToken();
  const id = newId();
  await sessions.insert({
    id,
    userId: input.userId,
    tokenHash: tokenHash(token),
    method: input.method,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + policy.maxHours * 3600_000),
    ip: input.ip || null,
    userAgent: input.userAgent?.slice(0, 512) ?? null,
    secondFactor: input.secondFactor ?? null,
    mustEnrol: input.mustEnrol ?? false,
  });
  return { id, token, csrfToken: csrfTokenFor(policy.secretKey, token), maxAgeSeconds: policy.maxHours * 3600 };
}

export interface ActiveSession {
  sessionId: string;
  csrfToken: string;
  /** The CSRF tokens this session accepts: under the current key, then under previous keys. */
  acceptedCsrfTokens: string[];
  user: PrincipalUser;
  expiresAt: Date;
}

/** The live session of a token, or undefined when unknown, revoked, expired or its user disabled. */
export async function resolveSession(
  sessions: SessionsRepo, policy: SessionPolicy, token: string, now: Date,
): Promise<ActiveSession | undefined> {
  const row = await sessions.findLive(tokenHash(token), now, idleSince(policy, now));
  if (!row) return undefined;
  // Touch at most once a minute: enough for idle expiry and "last seen", without a write per request.
  if (now.getTime() - row.lastSeenAt.getTime() > 60_000) await sessions.touch(row.id, now);
  return {
    sessionId: row.id,
    csrfToken: csrfTokenFor(policy.secretKey, token),
    acceptedCsrfTokens: verifyingKeys(policy).map((k) => csrfTokenFor(k, token)),
    user: { id: row.userId, name: row.name, role: row.role, mustChangePassword: row.mustChangePassword, mustEnrol: row.mustEnrol },
    expiresAt: row.expiresAt,
  };
}
