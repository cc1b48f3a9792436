/**
 * A software WebAuthn authenticator for tests, on node:crypto only: ES256 (P-256) credentials,
 * "none" attestation, discoverable (resident) credentials with their user handle, and a signature
 * counter per credential. It answers the JSON options Herald hands out exactly as a browser's
 * navigator.credentials.create()/get() would (in their toJSON() form), so the real
 * @simplewebauthn/server checks real signatures (proved in tests/unit/webauthn-authenticator.test.ts).
 *
 * What a browser would refuse, it refuses the same way: an excluded credential it holds
 * (InvalidStateError), no usable credential (NotAllowedError), ES256 not offered (NotSupportedError)
 * and, only with `browserRules`, an IP address or foreign host as relying party id (SecurityError).
 * What a broken or hostile client could send, it sends on request, so tests can show the server
 * refusing it: any origin (the `origin` argument is written as given), another relying party id
 * hashed into the authenticator data (`rpId` per call), no user verification (`userVerified`),
 * and a counter going backwards (`clone()` or `setSignCount()`).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

export type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/** One credential the authenticator holds. `id` is the raw credential id; its base64url form is what the server sees. */
export interface AuthenticatorCredential {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The P-256 point's coordinates, 32 bytes each (as in the COSE key). */
  x: Buffer;
  y: Buffer;
  rpId: string;
  /** user.id of the creation options (raw bytes), answered as userHandle by a discoverable credential. */
  userHandle: Buffer;
  signCount: number;
  /** A resident key: usable with empty allowCredentials (passwordless), and it answers its user handle. */
  discoverable: boolean;
}

export interface AuthenticatorOptions {
  /** The page origin used when register()/authenticate() are called without one. */
  origin?: string;
  /** Report user verification (a PIN or biometric) in the flags; default true. */
  userVerified?: boolean;
  /** The counter a new credential starts at (in the registration's authenticator data); default 0. */
  initialSignCount?: number;
  /** How much each assertion adds to the counter; default 1. 0 is an authenticator without a counter. */
  counterStep?: number;
  /**
   * Refuse, like a browser, a relying party id that is an IP address or is neither the origin's
   * host nor a parent domain of it (SecurityError). Off by default so tests can forge such
   * responses; no public-suffix list, so "com" would pass.
   */
  browserRules?: boolean;
}

/** What register() reads of PublicKeyCredentialCreationOptionsJSON (the full type fits). */
export type CreationOptionsInput = Pick<PublicKeyCredentialCreationOptionsJSON, 'challenge'>
  & Partial<Pick<PublicKeyCredentialCreationOptionsJSON, 'excludeCredentials' | 'authenticatorSelection' | 'pubKeyCredParams'>>
  & { rp: { id?: string }; user: { id: string } };

/** What authenticate() reads of PublicKeyCredentialRequestOptionsJSON (the full type fits). */
export type RequestOptionsInput = Pick<PublicKeyCredentialRequestOptionsJSON, 'challenge' | 'rpId' | 'allowCredentials'>;

/** Per-call deviations from what a correct authenticator would produce. */
export interface ResponseOverrides {
  /** The relying party id hashed into the authenticator data, instead of the one asked for. */
  rpId?: string;
  /** The UV flag for this response, instead of the authenticator's `userVerified`. */
  userVerified?: boolean;
}

export interface RegisterOverrides extends ResponseOverrides {
  /** Make a resident key or not, instead of following authenticatorSelection.residentKey. */
  discoverable?: boolean;
}

export interface AuthenticateOverrides extends ResponseOverrides {
  /** Answer with this credential (base64url id), as a user choosing in the browser's account picker. */
  credentialId?: string;
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();
// Realm-proof (Jest runs tests in a vm context, where a Buffer is not an instanceof the context's Uint8Array).
const isBytes = (v: unknown): v is Uint8Array => Object.prototype.toString.call(v) === '[object Uint8Array]';
const domError = (name: string, message: string) => Object.assign(new Error(message), { name });

/**
 * Just enough CBOR (RFC 8949) for attestation objects and COSE keys: integers (safe range),
 * byte strings, text strings, arrays and Maps (written in insertion order; callers pass keys in
 * CTAP2 canonical order).
 */
export function cborEncode(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) { const b = Buffer.alloc(3); b[0] = (major << 5) | 25; b.writeUInt16BE(n, 1); return b; }
    if (n < 0x100000000) { const b = Buffer.alloc(5); b[0] = (major << 5) | 26; b.writeUInt32BE(n, 1); return b; }
    const b = Buffer.alloc(9); b[0] = (major << 5) | 27; b.writeBigUInt64BE(BigInt(n), 1); return b;
  };
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`cbor: only safe integers are supported, not ${value}`);
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (isBytes(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') { const b = Buffer.from(value, 'utf8'); return Buffer.concat([head(3, b.length), b]); }
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cborEncode)]);
  if (value instanceof Map) {
    return Buffer.concat([head(5, value.size), ...[...value.entries()].flatMap(([k, v]) => [cborEncode(k), cborEncode(v)])]);
  }
  throw new Error(`cbor: cannot encode ${typeof value}`);
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40; // BE (0x08) and BS (0x10) stay 0: a single-device credential, never backed up.
const ES256 = -7;

const isIpLiteral = (host: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');

export class SoftwareAuthenticator {
  readonly credentials: AuthenticatorCredential[] = [];
  origin: string | undefined;
  userVerified: boolean;
  initialSignCount: number;
  counterStep: number;
  browserRules: boolean;

  constructor(options: AuthenticatorOptions = {}) {
    this.origin = options.origin;
    this.userVerified = options.userVerified ?? true;
    this.initialSignCount = options.initialSignCount ?? 0;
    this.counterStep = options.counterStep ?? 1;
    this.browserRules = options.browserRules ?? false;
  }

  /** navigator.credentials.create() for PublicKeyCredentialCreationOptionsJSON; `origin` is the page's origin. */
  register(options: CreationOptionsInput, origin?: string, overrides: RegisterOverrides = {}): RegistrationResponseJSON {
    const pageOrigin = this.pageOrigin(origin);
    const rpId = this.relyingParty(options.rp.id, pageOrigin);
    const params = options.pubKeyCredParams ?? [];
    if (params.length > 0 && !params.some((p) => p.alg === ES256)) {
      throw domError('NotSupportedError', 'This authenticator only makes ES256 keys, and the options do not offer ES256');
    }
    const exclude = (options.excludeCredentials ?? []).map((c) => c.id);
    if (this.credentials.some((c) => c.rpId === rpId && exclude.includes(b64u(c.id)))) {
      throw domError('InvalidStateError', 'This authenticator holds an excluded credential');
    }
    const residentKey = options.authenticatorSelection?.residentKey;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cred: AuthenticatorCredential = {
      id: randomBytes(32), privateKey, publicKey,
      x: Buffer.from(jwk.x!, 'base64url'), y: Buffer.from(jwk.y!, 'base64url'), rpId,
      userHandle: Buffer.from(options.user.id, 'base64url'), signCount: this.initialSignCount,
      // A platform authenticator makes resident keys unless the relying party discourages them.
      discoverable: overrides.discoverable ?? residentKey !== 'discouraged',
    };
    this.credentials.push(cred);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(cred.id.length, 0);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, cred.id, coseKey(cred)]);
    const authData = this.authData(overrides.rpId ?? rpId, cred.signCount, overrides.userVerified, attested);
    const clientData = clientDataJSON('webauthn.create', options.challenge, pageOrigin);
    const attestationObject = cborEncode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return {
      id: b64u(cred.id), rawId: b64u(cred.id), type: 'public-key',
      response: {
        clientDataJSON: b64u(clientData), attestationObject: b64u(attestationObject), transports: ['internal'],
        publicKeyAlgorithm: ES256, publicKey: b64u(publicKey.export({ type: 'spki', format: 'der' })), authenticatorData: b64u(authData),
      },
      clientExtensionResults: {}, authenticatorAttachment: 'platform',
    };
  }

  /**
   * navigator.credentials.get() for PublicKeyCredentialRequestOptionsJSON: the first credential
   * (or `credentialId`) of the relying party that allowCredentials lists or, with none listed, the
   * first discoverable one. Adds `counterStep` to its counter and signs authData || SHA-256(clientDataJSON).
   */
  authenticate(options: RequestOptionsInput, origin?: string, pick: AuthenticateOverrides = {}): AuthenticationResponseJSON {
    const pageOrigin = this.pageOrigin(origin);
    const rpId = this.relyingParty(options.rpId, pageOrigin);
    const allowed = (options.allowCredentials ?? []).map((c) => c.id);
    const cred = this.credentials.find((c) => c.rpId === rpId
      && (allowed.length === 0 ? c.discoverable : allowed.includes(b64u(c.id)))
      && (!pick.credentialId || pick.credentialId === b64u(c.id)));
    if (!cred) throw domError('NotAllowedError', 'No credential of this authenticator is allowed');
    cred.signCount += this.counterStep;
    const authData = this.authData(pick.rpId ?? rpId, cred.signCount, pick.userVerified);
    const clientData = clientDataJSON('webauthn.get', options.challenge, pageOrigin);
    // ECDSA with SHA-256, DER-encoded as WebAuthn wants for ES256.
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), { key: cred.privateKey, dsaEncoding: 'der' });
    return {
      id: b64u(cred.id), rawId: b64u(cred.id), type: 'public-key',
      response: {
        clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature),
        ...(cred.discoverable ? { userHandle: b64u(cred.userHandle) } : {}),
      },
      clientExtensionResults: {}, authenticatorAttachment: 'platform',
    };
  }

  /** The credential with this base64url id; throws if this authenticator does not hold it. */
  credential(credentialId: string): AuthenticatorCredential {
    const cred = this.credentials.find((c) => b64u(c.id) === credentialId);
    if (!cred) throw new Error(`This authenticator holds no credential ${credentialId}`);
    return cred;
  }

  /** The credential's public key as the COSE_Key bytes the registration carried (what the server stores). */
  publicKeyCose(credentialId: string): Buffer {
    return coseKey(this.credential(credentialId));
  }

  /** Set a credential's counter; the next assertion reports n + counterStep. Lower it to act as a clone. */
  setSignCount(credentialId: string, n: number): void {
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`A sign count is a 32-bit unsigned integer, not ${n}`);
    this.credential(credentialId).signCount = n;
  }

  /** A copy of this authenticator: same keys and counters, from now on counting on its own (a clone). */
  clone(): SoftwareAuthenticator {
    const copy = new SoftwareAuthenticator({
      origin: this.origin, userVerified: this.userVerified, initialSignCount: this.initialSignCount,
      counterStep: this.counterStep, browserRules: this.browserRules,
    });
    for (const c of this.credentials) copy.credentials.push({ ...c });
    return copy;
  }

  private pageOrigin(origin: string | undefined): string {
    const o = origin ?? this.origin;
    if (!o) throw new Error('No origin: pass one to the call or to createAuthenticator({ origin })');
    return o;
  }

  private relyingParty(asked: string | undefined, origin: string): string {
    const host = new URL(origin).hostname.replace(/^\[|\]$/g, '');
    const rpId = asked ?? host;
    if (this.browserRules && (isIpLiteral(rpId) || (rpId !== host && !host.endsWith(`.${rpId}`)))) {
      throw domError('SecurityError', `"${rpId}" is not a valid relying party id for ${origin}`);
    }
    return rpId;
  }

  private authData(rpId: string, signCount: number, uv: boolean | undefined, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(signCount >>> 0, 0);
    const flags = FLAG_UP | ((uv ?? this.userVerified) ? FLAG_UV : 0) | (attested ? FLAG_AT : 0);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }
}

/** COSE_Key for an EC2 P-256 ES256 public key: {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}. */
function coseKey(cred: AuthenticatorCredential): Buffer {
  return cborEncode(new Map<number, unknown>([[1, 2], [3, ES256], [-1, 1], [-2, cred.x], [-3, cred.y]]));
}

function clientDataJSON(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/** A new, empty software authenticator. */
export function createAuthenticator(options: AuthenticatorOptions = {}): SoftwareAuthenticator {
  return new SoftwareAuthenticator(options);
}
