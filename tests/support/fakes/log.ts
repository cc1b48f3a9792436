/** A log that keeps its lines in memory (message and fields, a child's fields included). */
import type { Log, LogFields } from '../../../src/core/log.js';

export interface LogLine { level: 'error' | 'warn' | 'info' | 'debug'; message: string; fields: LogFields }

export function memoryLog(lines: LogLine[] = [], base: LogFields = {}): Log & { lines: LogLine[] } {
  const at = (level: LogLine['level']) => (message: string, fields: LogFields = {}) => { lines.push({ level, message, fields: { ...base, ...fields } }); };
  return {
    lines,
    error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'),
    child: (fields) => memoryLog(lines, { ...base, ...fields }),
  };
}
