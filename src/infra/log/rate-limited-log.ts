/**
 * Log lines about one recurring condition (a dependency that is down), at most once per interval
 * for each key: the first at once, then one per interval that says how many were left out.
 * A Redis outage would otherwise write dozens of identical lines a second.
 */
import type { Logger } from './logger.js';

export type RateLimitedLog = (key: string, message: string, meta?: Record<string, unknown>) => void;

export function rateLimitedLog(logger: Logger, level: 'warn' | 'error', intervalMs = 30_000, now: () => number = Date.now): RateLimitedLog {
  const last = new Map<string, { at: number; suppressed: number }>();
  return (key, message, meta = {}) => {
    const t = now();
    const seen = last.get(key);
    if (seen && t - seen.at < intervalMs) { seen.suppressed += 1; return; }
    logger.log(level, message, seen && seen.suppressed > 0 ? { ...meta, suppressed: seen.suppressed } : meta);
    last.set(key, { at: t, suppressed: 0 });
  };
}
