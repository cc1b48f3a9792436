/**
 * The secret key (and the previous ones, during a rotation), the keys derived from it, and
 * password hashing. The key file of a first start is made last, once every other setting is
 * known to be good, so a bad setting leaves nothing behind.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createKeyring, type Keyring } from '../crypto/keyring.js';
import { processSettings } from './process.js';
import { commaList, integer, setting, SettingsError, type ParseContext } from './schema.js';

const KEY_HINT = 'must be base64 of exactly 32 bytes (openssl rand -base64 32)';

function decodeKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  const buf = Buffer.from(trimmed, 'base64');
  return buf.length === 32 && /^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) ? buf : undefined;
}

function readKeyFile(file: string): Buffer {
  const key = decodeKey(readFileSync(file, 'utf8'));
  if (!key) throw new SettingsError('SVC_DATA_DIR', `${file} is not base64 of 32 bytes; restore it, or set SVC_SECRET_KEY`);
  return key;
}

/** Makes the key file of a first start; processes starting together agree on one key. */
function makeKeyFile(dataDir: string, file: string): Buffer {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  // Written whole to a private file, then linked into place: processes starting together
  // agree on one key (the loser of the link reads the winner's) and never read half a file.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, file);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readKeyFile(file);
  } finally {
    unlinkSync(temp);
  }
}

/** No key given: the one kept in the data directory, made on first start. */
function keyFromDataDir(ctx: ParseContext): Buffer {
  const dataDir = ctx.valueOf(processSettings.dataDir);
  const file = path.join(dataDir, 'secret.key');
  try {
    if (existsSync(file)) return readKeyFile(file);
    // A command that must leave nothing behind gets a key of its own, used for nothing durable.
    if (ctx.files === 'none') return randomBytes(32);
    if (ctx.files === 'existing') {
      throw new SettingsError('SVC_SECRET_KEY', `is required here: set it to the service's key (or SVC_DATA_DIR to the folder holding its secret.key; ${file} does not exist)`);
    }
    return makeKeyFile(dataDir, file);
  } catch (err) {
    if (err instanceof SettingsError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new SettingsError('SVC_DATA_DIR', `cannot keep the secret key in ${dataDir} (${code}); make it writable, or set SVC_SECRET_KEY`);
  }
}

const secretKey = setting({
  env: 'SVC_SECRET_KEY',
  description: 'base64 of 32 random bytes (openssl rand -base64 32); the keys that encrypt secret fields and sign tokens are derived from it',
  default: 'made on first start in SVC_DATA_DIR/secret.key',
  last: true,
  parse(v, ctx): Buffer {
    if (v === undefined) return keyFromDataDir(ctx);
    return decodeKey(v) ?? ctx.fail(KEY_HINT);
  },
});

const previousSecretKeys = setting({
  env: 'SVC_SECRET_KEY_PREVIOUS',
  description: 'comma list of earlier secret keys (base64), during a key rotation: they still open old values and verify old tokens',
  default: 'empty',
  parse(v, ctx): Buffer[] {
    return commaList(v).map((item, i) => decodeKey(item) ?? ctx.fail(`item ${i + 1} ${KEY_HINT}`));
  },
});

export const securitySettings = {
  /** The secret key as configured (32 bytes); never logged, never used directly: see `keys`. */
  secretKey,
  /** SVC_SECRET_KEY_PREVIOUS: keys of before a rotation, newest first. */
  previousSecretKeys,
  /** The keys derived from the secret key and the previous ones. */
  keys: setting({
    description: 'the keys derived from SVC_SECRET_KEY and SVC_SECRET_KEY_PREVIOUS',
    default: '-',
    last: true,
    parse: (_v, ctx): Keyring => createKeyring(ctx.valueOf(secretKey), ctx.valueOf(previousSecretKeys)),
  }),
  bcryptCost: integer('SVC_BCRYPT_COST', { fallback: 12, min: 12, max: 15 }, 'bcrypt cost for passwords (12 to 15)'),
};
