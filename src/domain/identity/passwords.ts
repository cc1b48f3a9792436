/**
 * Password policy (pure) and hashing. Hashes are bcrypt (cost ≥ 12) of base64(SHA-256(password)),
 * so passwords longer than bcrypt's 72 bytes are never silently truncated.
 */
import { createHash, randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import type * as LanguageCommon from '@zxcvbn-ts/language-common';
import type { FieldProblem } from '../../core/errors.js';
import { onFirstUse } from '../../core/on-first-use.js';

/** The common-password list (megabytes), loaded the first time a password is checked. */
const commonList = onFirstUse<typeof LanguageCommon>('@zxcvbn-ts/language-common');

export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 128;

let common: Set<string> | undefined;
function commonPasswords(): Set<string> {
  common ??= new Set((commonList().dictionary['passwords-common'] as string[])
    .filter((p) => p.length >= MIN_PASSWORD).map((p) => p.toLowerCase()));
  return common;
}

/** Problems with a new password, reported on `field`; empty when it is acceptable. */
export function passwordProblems(password: string, email: string | undefined, field = 'password'): FieldProblem[] {
  const length = [...password].length;
  if (length < MIN_PASSWORD || length > MAX_PASSWORD) {
    return [{ field, code: 'validation.range', message: `must be ${MIN_PASSWORD} to ${MAX_PASSWORD} characters` }];
  }
  const problems: FieldProblem[] = [];
  if (email && password.trim().toLowerCase() === email.trim().toLowerCase()) {
    problems.push({ field, code: 'validation.password_matches_email', message: 'must not be your email address' });
  }
  if (commonPasswords().has(password.toLowerCase())) {
    problems.push({ field, code: 'validation.password_too_common', message: 'is one of the most common passwords' });
  }
  return problems;
}

function prehash(password: string): string {
  return createHash('sha256').update(password.normalize('NFC'), 'utf8').digest('base64');
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string | null): Promise<boolean>;
}

/**
 * bcrypt at `cost` (SVC_BCRYPT_COST, 12 to 15). Only tests lower `floor`, to spend less time
 * hashing where the cost itself is not what they check.
 *
 * A password of a user who does not exist is compared against a dummy hash of the same cost, so
 * that timing does not reveal accounts. The dummy is made on bcrypt's thread pool, never on the
 * event loop (made with hashSync it held every process's start-up 0.2 s at cost 12, 1.7 s at 15):
 * at once with `warm` (a process that answers sign-ins, so the first one waits for nothing), else
 * when first needed (a worker or a command never needs it).
 */
export function createPasswordHasher(cost: number, floor = 12, options: { warm?: boolean } = {}): PasswordHasher {
  if (cost < floor) throw new Error(`bcrypt cost must be at least ${floor}`);
  let dummy: Promise<string> | undefined;
  const dummyHash = (): Promise<string> => {
    if (!dummy) {
      dummy = bcrypt.hash(prehash(randomBytes(16).toString('hex')), cost);
      // A failure is met by the verify that needed it; the next one makes the dummy again.
      dummy.catch(() => { dummy = undefined; });
    }
    return dummy;
  };
  if (options.warm) void dummyHash();
  return {
    hash: (password) => bcrypt.hash(prehash(password), cost),
    async verify(password, hash) {
      const ok = await bcrypt.compare(prehash(password), hash ?? await dummyHash());
      return ok && hash !== null;
    },
  };
}

/** A readable temporary password: 16 characters from an unambiguous alphabet (~93 bits). */
export function temporaryPassword(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = randomBytes(32);
  let out = '';
  for (const b of bytes) {
    if (b >= alphabet.length * 4) continue;
    out += alphabet[b % alphabet.length];
    if (out.length === 16) break;
  }
  return out.length === 16 ? out : temporaryPassword();
}
