import type { Settings } from '../config/settings.js';
import { redisSecretsOf } from '../queue/redis-url.js';
import { createLogger, type Logger } from './logger.js';
import { SecretRegistry } from './redact.js';
import { allKeys } from '../crypto/keyring.js';

/** The process logger: the settings' own secrets are registered so no line can carry them. */
export function createProcessLogger(settings: Settings, stream?: NodeJS.WritableStream): Logger {
  const registry = new SecretRegistry();
  // Every key: the secret keys as configured (current and previous) and the keys derived from them.
  for (const key of allKeys(settings.keys)) {
    for (const bytes of [key.master, key.encryption, key.hmac]) {
      registry.add(bytes.toString('base64'));
      registry.add(bytes.toString('base64url'));
    }
  }
  registry.add(settings.metricsToken);
  for (const u of [settings.databaseUrl, settings.databaseDirectUrl, settings.smtpUrl]) {
    if (u) registry.add(decodeURIComponent(new URL(u).password));
  }
  for (const p of redisSecretsOf(settings.redisUrl)) registry.add(p);
  return createLogger({ format: settings.logFormat, level: settings.logLevel, registry, stream, base: { service: 'herald' } });
}
