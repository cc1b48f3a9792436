/**
 * A software WebAuthn authenticator for tests, on node:crypto only: ES256 (P-256) credentials,
 * "none" attestation, discoverable (resident) credentials with their user handle, and a signature
 * counter per credential. It answers the JSON options Herald hands out exactly as a browser's
 * navigator.credentials.create()/get() would (in their toJSON() form), so the real
 * @simplewebauthn/server checks real signatures. A clone (same keys, counter behind) is one call.
 */
import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  x: Buffer;
  y: Buffer;
  rpId: string;
  userHandle: Buffer;
  signCount: number;
}

type Json = Record<string, unknown>;

const b64u = (b: Buffer) => b.toString('base64url');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();

/** Just enough CBOR (RFC 8949) for attestation objects and COSE keys. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) { const b = Buffer.alloc(3); b[0] = (major << 5) | 25; b.writeUInt16BE(n, 1); return b; }
    const b = Buffer.alloc(5); b[0] = (major << 5) | 26; b.writeUInt32BE(n, 1); return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') { const b = Buffer.from(value, 'utf8'); return Buffer.concat([head(3, b.length), b]); }
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  if (value instanceof Map) {
    return Buffer.concat([head(5, value.size), ...[...value.entries()].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  }
  throw new Error(`cbor: cannot encode ${typeof value}`);
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface AuthenticatorOptions {
  /** Report user verification (a PIN or biometric); default true. */
  userVerified?: boolean;
}

export class SoftwareAuthenticator {
  readonly credentials: Credential[] = [];
  userVerified: boolean;

  constructor(options: AuthenticatorOptions = {}) {
    this.userVerified = options.userVerified ?? true;
  }

  private authData(rpId: string, signCount: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(signCount, 0);
    const flags = FLAG_UP | (this.userVerified ? FLAG_UV : 0) | (attested ? FLAG_AT : 0);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create() for PublicKeyCredentialCreationOptionsJSON; `origin` is the page's origin. */
  register(options: Json, origin: string): Json {
    const rp = options.rp as { id?: string };
    const rpId = rp.id ?? new URL(origin).hostname;
    const exclude = ((options.excludeCredentials as Array<{ id: string }> | undefined) ?? []).map((c) => c.id);
    if (this.credentials.some((c) => c.rpId === rpId && exclude.includes(b64u(c.id)))) {
      throw Object.assign(new Error('This authenticator holds an excluded credential'), { name: 'InvalidStateError' });
    }
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cred: Credential = {
      id: randomBytes(32), privateKey, x: Buffer.from(jwk.x!, 'base64url'), y: Buffer.from(jwk.y!, 'base64url'), rpId,
      userHandle: Buffer.from((options.user as { id: string }).id, 'base64url'), signCount: 0,
    };
    this.credentials.push(cred);
    const cose = cbor(new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, cred.x], [-3, cred.y]]));
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(cred.id.length, 0);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, cred.id, cose]);
    const authData = this.authData(rpId, cred.signCount, attested);
    const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }));
    const attestationObject = cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return {
      id: b64u(cred.id), rawId: b64u(cred.id), type: 'public-key',
      response: { clientDataJSON: b64u(clientData), attestationObject: b64u(attestationObject), transports: ['internal'] },
      clientExtensionResults: {}, authenticatorAttachment: 'platform',
    };
  }

  /**
   * navigator.credentials.get() for PublicKeyCredentialRequestOptionsJSON: a credential the
   * options allow (or, with none listed, any discoverable one of the relying party).
   */
  authenticate(options: Json, origin: string, pick?: { credentialId?: string }): Json {
    const rpId = (options.rpId as string | undefined) ?? new URL(origin).hostname;
    const allowed = ((options.allowCredentials as Array<{ id: string }> | undefined) ?? []).map((c) => c.id);
    const cred = this.credentials.find((c) => c.rpId === rpId
      && (allowed.length === 0 || allowed.includes(b64u(c.id)))
      && (!pick?.credentialId || pick.credentialId === b64u(c.id)));
    if (!cred) throw Object.assign(new Error('No credential of this authenticator is allowed'), { name: 'NotAllowedError' });
    cred.signCount += 1;
    const authData = this.authData(rpId, cred.signCount);
    const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
    const signer = createSign('SHA256');
    signer.update(Buffer.concat([authData, sha256(clientData)]));
    const signature = signer.sign(cred.privateKey); // DER, as WebAuthn wants for ES256
    return {
      id: b64u(cred.id), rawId: b64u(cred.id), type: 'public-key',
      response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: b64u(cred.userHandle) },
      clientExtensionResults: {}, authenticatorAttachment: 'platform',
    };
  }

  /** A copy of this authenticator: same keys and counters, from now on counting on its own (a clone). */
  clone(): SoftwareAuthenticator {
    const copy = new SoftwareAuthenticator({ userVerified: this.userVerified });
    for (const c of this.credentials) copy.credentials.push({ ...c });
    return copy;
  }
}
