/** Log lines: format and level. */
import { oneOf } from './schema.js';

export type LogFormat = 'json' | 'text';
export type LogLevel = 'error' | 'warn' | 'info' | 'http' | 'verbose' | 'debug';

export const loggingSettings = {
  logFormat: oneOf<LogFormat>('SVC_LOG_FORMAT', ['json', 'text'], (ctx) => (ctx.isTty ? 'text' : 'json'),
    'log line format: json or text', 'text on a terminal, else json'),
  logLevel: oneOf<LogLevel>('SVC_LOG_LEVEL', ['error', 'warn', 'info', 'http', 'verbose', 'debug'], 'info',
    'lowest level logged: error, warn, info, http, verbose, debug', 'info'),
};
