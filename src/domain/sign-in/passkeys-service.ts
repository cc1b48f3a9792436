/**
 * Passkeys (WebAuthn, @simplewebauthn/server): adding them for a signed-in user, and checking a
 * passkey's signature for sign-in, as the second step of a password sign-in or on its own
 * (discoverable credentials). The relying party is the host of SVC_PUBLIC_URL, the expected
 * origin its origin. Every challenge is kept server side as a hash, works once, for five
 * minutes, for the purpose it was made for. A signature counter that goes backwards means a
 * cloned authenticator: refused and audited.
 */
import { isIP } from 'node:net';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '../../core/clock.js';
import { DomainError, notFound } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { recordSecurityEvent } from '../audit/security-events.js';
import { asUser, anonymous, type RequestMeta } from './auth-shared.js';
import { STEP_TTL_MS } from './second-factor.js';
import { tokenHash } from '../identity/tokens.js';
import type { PasskeyRecord } from '../identity/model.js';
import type { IdentityStore } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

/** @simplewebauthn/server, loaded the first time a passkey is added or used. */
const webauthn = () => import('@simplewebauthn/server');

export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname.replace(/^\[|\]$/g, ''), name: 'Herald', origin: url.origin };
}

/** Browsers refuse an IP address as relying party id: no passkey options are handed out for one. */
function assertUsable(rp: RelyingParty): void {
  if (isIP(rp.id) !== 0) {
    throw new DomainError('passkey.unavailable', `Passkeys need SVC_PUBLIC_URL with a host name; browsers refuse the address ${rp.id}`);
  }
}

export type AssertionPurpose = 'second_factor' | 'passwordless';
const REGISTER = 'webauthn.register';
const assertionKind = (purpose: AssertionPurpose) => `webauthn.${purpose}`;

/** Any JSON a client sent as the credential; checked by the library. */
export type CredentialJson = Record<string, unknown>;

/** The challenge a credential answers (from its clientDataJSON), or undefined when unreadable. */
function challengeOf(credential: CredentialJson): string | undefined {
  try {
    const response = credential.response as { clientDataJSON?: unknown } | undefined;
    if (typeof response?.clientDataJSON !== 'string') return undefined;
    const data = JSON.parse(Buffer.from(response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

const challengeInvalid = () => new DomainError('auth.challenge_invalid', 'The passkey challenge is unknown, used or expired; ask for new options');
const refused = (detail = 'The passkey was not accepted') => new DomainError('auth.invalid_credentials', detail);

/** The user handle a passkey carries for a user: the user's id. */
const userHandleOf = (userId: string) => Buffer.from(userId, 'utf8');

export interface PasskeyDeps {
  store: Pick<IdentityStore, 'users' | 'passkeys' | 'flows' | 'events' | 'sessions'>; uow: UnitOfWork;
  rp: RelyingParty;
  clock: Clock;
}

/** Options for navigator.credentials.get(); the challenge is stored for `purpose`. */
export async function assertionOptions(
  deps: PasskeyDeps, purpose: AssertionPurpose, user?: { id: string }, data: Record<string, unknown> = {},
): Promise<{ options: Record<string, unknown>; expiresAt: Date }> {
  assertUsable(deps.rp);
  const keys = user ? await deps.store.passkeys.listOf(user.id) : [];
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: deps.rp.id,
    allowCredentials: keys.map((k) => ({ id: k.credentialId, transports: k.transports })),
    userVerification: purpose === 'passwordless' ? 'required' : 'preferred',
    timeout: STEP_TTL_MS,
  });
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + STEP_TTL_MS);
  await deps.store.flows.insert({
    id: newId(), kind: assertionKind(purpose), tokenHash: tokenHash(options.challenge), userId: user?.id ?? null, data, createdAt: now, expiresAt,
  });
  return { options: options as unknown as Record<string, unknown>, expiresAt };
}

/**
 * Checks a passkey's answer to a challenge made for `purpose` (and, for a second step, for that
 * user). Answers the passkey (its counter now stored) or throws auth.challenge_invalid /
 * auth.invalid_credentials; a counter going backwards is audited as passkey.clone_refused.
 */
export async function verifyAssertion(
  deps: PasskeyDeps, purpose: AssertionPurpose, credential: CredentialJson, meta: RequestMeta, expectedUserId?: string,
): Promise<{ passkey: PasskeyRecord; flowData: Record<string, unknown> }> {
  const { store, clock } = deps;
  const challenge = challengeOf(credential);
  if (!challenge) throw challengeInvalid();
  const flow = await store.flows.consume(assertionKind(purpose), tokenHash(challenge), clock.now());
  if (!flow) throw challengeInvalid();
  const credentialId = typeof credential.id === 'string' ? credential.id : '';
  const passkey = credentialId ? await store.passkeys.findByCredentialId(credentialId) : undefined;
  const wanted = expectedUserId ?? flow.userId ?? undefined;
  const fail = async (reason: string, userId: string | null, detail?: string) => {
    await recordSecurityEvent(store.events, {
      type: reason === 'passkey.clone_refused' ? 'passkey.clone_refused' : 'auth.sign_in', outcome: 'failure', reason,
      actor: anonymous(meta), userId, ...(passkey ? { target: { type: 'passkey', id: passkey.id } } : {}),
      details: { method: 'passkey', purpose },
    }, clock);
    return refused(detail);
  };
  if (!passkey || (wanted && passkey.userId !== wanted)) throw await fail('passkey.unknown', wanted ?? null);
  if (purpose === 'passwordless') {
    const handle = (credential.response as { userHandle?: unknown } | undefined)?.userHandle;
    if (typeof handle !== 'string' || !Buffer.from(handle, 'base64url').equals(userHandleOf(passkey.userId))) {
      throw await fail('passkey.user_handle_mismatch', passkey.userId);
    }
  }
  let newCounter: number;
  try {
    const result = await (await webauthn()).verifyAuthenticationResponse({
      response: credential as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: deps.rp.origin,
      expectedRPID: deps.rp.id,
      credential: { id: passkey.credentialId, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.counter, transports: passkey.transports as never },
      requireUserVerification: purpose === 'passwordless',
    });
    if (!result.verified) throw await fail('passkey.signature_invalid', passkey.userId);
    newCounter = result.authenticationInfo.newCounter;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    if (err instanceof Error && /counter value/i.test(err.message)) {
      throw await fail('passkey.clone_refused', passkey.userId, 'The passkey was refused: its signature counter went backwards, which a cloned authenticator does');
    }
    throw await fail('passkey.verification_failed', passkey.userId);
  }
  // A concurrent use that stored a counter first wins; this one is refused as a possible clone.
  if (!(await store.passkeys.recordUse(passkey.id, passkey.counter, newCounter, clock.now()))) {
    throw await fail('passkey.clone_refused', passkey.userId, 'The passkey was refused: another sign-in used the same signature counter');
  }
  return { passkey: { ...passkey, counter: newCounter }, flowData: flow.data };
}

export function createPasskeysService(deps: PasskeyDeps) {
  const { store, rp, clock } = deps;
  return {
    list: (userId: string) => store.passkeys.listOf(userId),

    async registrationOptions(userId: string): Promise<{ options: Record<string, unknown>; expiresAt: Date }> {
      assertUsable(rp);
      const user = await store.users.find(userId);
      if (!user) throw notFound('user');
      const existing = await store.passkeys.listOf(userId);
      const options = await (await webauthn()).generateRegistrationOptions({
        rpName: rp.name, rpID: rp.id,
        userName: user.email, userDisplayName: user.name, userID: userHandleOf(user.id),
        attestationType: 'none',
        excludeCredentials: existing.map((k) => ({ id: k.credentialId, transports: k.transports })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
        timeout: STEP_TTL_MS,
      });
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + STEP_TTL_MS);
      await store.flows.insert({ id: newId(), kind: REGISTER, tokenHash: tokenHash(options.challenge), userId, data: {}, createdAt: now, expiresAt });
      return { options: options as unknown as Record<string, unknown>, expiresAt };
    },

    async add(userId: string, input: { name?: string | undefined; credential: CredentialJson }, meta: RequestMeta): Promise<PasskeyRecord> {
      const challenge = challengeOf(input.credential);
      if (!challenge) throw challengeInvalid();
      const flow = await store.flows.findUsable(REGISTER, tokenHash(challenge), clock.now());
      if (!flow || flow.userId !== userId) throw challengeInvalid();
      const failed = (detail: string) => new DomainError('passkey.verification_failed', detail);
      let info;
      try {
        const result = await (await webauthn()).verifyRegistrationResponse({
          response: input.credential as unknown as RegistrationResponseJSON,
          expectedChallenge: challenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: false,
        });
        if (!result.verified) throw failed('The passkey did not verify');
        info = result.registrationInfo;
      } catch (err) {
        if (err instanceof DomainError) throw err;
        throw failed(`The passkey did not verify: ${err instanceof Error ? err.message.slice(0, 200) : 'unreadable answer'}`);
      }
      return deps.uow.run(async (tx) => {
        const now = clock.now();
        if (!(await tx.authFlows.claim(flow.id, now))) throw challengeInvalid();
        const count = await tx.passkeys.countOf(userId);
        const passkey = await tx.passkeys.insert({
          id: newId(), userId, credentialId: info.credential.id, publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
          counter: info.credential.counter, transports: info.credential.transports ?? [], deviceType: info.credentialDeviceType,
          backedUp: info.credentialBackedUp, aaguid: info.aaguid, name: input.name?.trim() || `Passkey ${count + 1}`,
          createdAt: now, updatedAt: now,
        });
        await tx.sessions.clearMustEnrol(userId);
        await recordSecurityEvent(tx.securityEvents, {
          type: 'passkey.added', actor: asUser(userId, meta), userId, target: { type: 'passkey', id: passkey.id },
          details: { device_type: passkey.deviceType, backed_up: passkey.backedUp },
        }, clock);
        return passkey;
      });
    },

    async rename(userId: string, id: string, name: string, meta: RequestMeta): Promise<PasskeyRecord> {
      return deps.uow.run(async (tx) => {
        const passkey = await tx.passkeys.rename(userId, id, name.trim(), clock.now());
        await recordSecurityEvent(tx.securityEvents, { type: 'passkey.renamed', actor: asUser(userId, meta), userId, target: { type: 'passkey', id } }, clock);
        return passkey;
      });
    },

    async remove(userId: string, id: string, meta: RequestMeta): Promise<void> {
      await deps.uow.run(async (tx) => {
        const removed = await tx.passkeys.remove(userId, id);
        if (!removed) throw notFound('passkey');
        await recordSecurityEvent(tx.securityEvents, { type: 'passkey.removed', actor: asUser(userId, meta), userId, target: { type: 'passkey', id } }, clock);
      });
    },
  };
}

export type PasskeysService = ReturnType<typeof createPasskeysService>;

