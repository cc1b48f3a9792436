import type { Settings } from '../config/settings.js';
import { createLogger, type Logger } from './logger.js';
import { SecretRegistry } from './redact.js';

/** The process logger: the settings' own secrets are registered so no line can carry them. */
export function createProcessLogger(settings: Settings, stream?: NodeJS.WritableStream): Logger {
  const registry = new SecretRegistry();
  registry.add(settings.secretKey.toString('base64'));
  registry.add(settings.metricsToken);
  for (const u of [settings.databaseUrl, settings.redisUrl, settings.smtpUrl]) {
    if (u) registry.add(decodeURIComponent(new URL(u).password));
  }
  return createLogger({ format: settings.logFormat, level: settings.logLevel, registry, stream, base: { service: 'herald' } });
}
