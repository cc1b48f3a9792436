import winston from 'winston';
import type { LogFormat, LogLevel } from '../config/settings.js';
import { BufferedOutput } from './buffered-output.js';
import { redactField, redactText, redactValue, type SecretRegistry } from './redact.js';

export type Logger = winston.Logger;

/** Redacts the message and every metadata field of a record, in place, before formatting. */
const redaction = winston.format((info, opts?: unknown) => {
  const registry = (opts as { registry?: SecretRegistry } | undefined)?.registry;
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    info[key] = key === 'message'
      ? (typeof info.message === 'string' ? redactText(info.message, registry) : redactValue(info.message, registry))
      : redactField(key, info[key], registry);
  }
  return info;
});

export interface LoggerOptions {
  format: LogFormat;
  level: LogLevel;
  registry?: SecretRegistry;
  /** Where lines go, each as it is logged; by default standard output, a short span's lines in one write. */
  stream?: NodeJS.WritableStream;
  base?: Record<string, unknown>;
}

export function createLogger(options: LoggerOptions): Logger {
  const output = options.format === 'json'
    ? winston.format.json()
    : winston.format.printf((info) => {
      const { level, message, timestamp, ...rest } = info;
      const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
      return `${String(timestamp)} ${level} ${String(message)}${extra}`;
    });
  const transport = options.stream
    ? new winston.transports.Stream({ stream: options.stream })
    : new BufferedOutput();
  // winston formats a line before its transports compare its level: a line below the level is
  // dropped first here, so it is neither redacted nor formatted (the level may change later).
  // eslint-disable-next-line prefer-const
  let logger: Logger;
  const enabled = winston.format((info) => (logger.isLevelEnabled(info.level) ? info : false));
  logger = winston.createLogger({
    level: options.level,
    defaultMeta: options.base,
    format: winston.format.combine(
      enabled(),
      winston.format.errors({ stack: true }),
      redaction({ registry: options.registry }),
      winston.format.timestamp(),
      output,
    ),
    transports: [transport],
  });
  return logger;
}
