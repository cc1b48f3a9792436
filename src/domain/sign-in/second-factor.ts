/**
 * The parts of a second factor that need no store: authenticator-app codes (RFC 6238 through
 * otplib: SHA-1, 6 digits, 30 s, one step of clock drift either way), the QR code of the
 * otpauth URI, and recovery codes (random, shown once, kept as hashes).
 */
import { createHash, randomInt } from 'node:crypto';
import type { Secrets } from '../../core/secrets.js';

/** otplib and qrcode, loaded the first time a person uses an authenticator app. */
const otp = () => import('otplib');
const qrcode = () => import('qrcode');

export const TOTP_ISSUER = 'Herald';
export const RECOVERY_CODE_COUNT = 10;
/** A sign-in ticket (password step done, second step pending) and a WebAuthn challenge live this long. */
export const STEP_TTL_MS = 5 * 60_000;
/** Wrong answers a ticket takes before it ends. */
export const TICKET_MAX_FAILURES = 5;

export const newTotpSecret = async (): Promise<string> => (await otp()).generateSecret();

export async function totpSetupOf(secret: string, email: string): Promise<{ secret: string; otpauthUri: string; qrCode: string }> {
  const otpauthUri = (await otp()).generateURI({ issuer: TOTP_ISSUER, label: email, secret });
  const { default: QRCode } = await qrcode();
  const svg = await QRCode.toString(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret, otpauthUri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** A code as people type it: spaces removed. */
export const normalizeTotpCode = (code: string): string => code.replace(/\s+/g, '');

/**
 * The time step a code matches at `now` (the current step, or one either side), or undefined.
 * Steps not later than `afterStep` do not match (a code is accepted once).
 */
export async function matchTotp(secret: string, code: string, now: Date, afterStep?: number | null): Promise<number | undefined> {
  const token = normalizeTotpCode(code);
  if (!/^\d{6}$/.test(token)) return undefined;
  const result = await (await otp()).verify({
    secret, token, epoch: Math.floor(now.getTime() / 1000), epochTolerance: 30,
    ...(afterStep !== null && afterStep !== undefined ? { afterTimeStep: afterStep } : {}),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : undefined;
}

/** The contexts the authenticator-app secrets are sealed with (see sealed-columns.ts). */
export const totpSecretContext = (userId: string) => `users.totp_secret:${userId}`;
export const totpPendingContext = (userId: string) => `users.totp_pending_secret:${userId}`;

/**
 * Uses a code of the user's authenticator app once: true when it matches (±1 step) a step later
 * than the last accepted one, which it now is (atomic, so one code cannot serve two requests).
 */
export async function useTotpCode(
  users: { acceptTotpStep(id: string, step: number): Promise<boolean> }, secrets: Secrets,
  user: { id: string; totpSecret: string | null; totpLastStep: number | null }, code: string, now: Date,
): Promise<boolean> {
  if (!user.totpSecret) return false;
  const step = await matchTotp(secrets.open(user.totpSecret, totpSecretContext(user.id)), code, now, user.totpLastStep);
  return step !== undefined && users.acceptTotpStep(user.id, step);
}

// Lower-case letters and digits without the look-alikes 0, 1, l, o (32 symbols, 5 bits each).
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** Ten codes like "k3vq-8mfa-x2pe" (60 bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 12 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]!).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
  });
}

/** A recovery code as typed: case, spaces and dashes do not matter. */
export const normalizeRecoveryCode = (code: string): string => code.toLowerCase().replace(/[\s-]+/g, '');

export const looksLikeRecoveryCode = (code: string): boolean => /^[a-z0-9]{12}$/.test(normalizeRecoveryCode(code));

/** What the store keeps of a recovery code: a hash salted with the user's id. */
export function recoveryCodeHash(userId: string, code: string): string {
  return createHash('sha256').update(`recovery:${userId}:${normalizeRecoveryCode(code)}`).digest('hex');
}

/** The second steps a user can take after the password. */
export function secondFactorMethods(user: { totpEnabled: boolean }, passkeyCount: number): Array<'totp' | 'recovery_code' | 'passkey'> {
  return [...(user.totpEnabled ? ['totp', 'recovery_code'] as const : []), ...(passkeyCount > 0 ? ['passkey'] as const : [])];
}
