/**
 * What code outside infra may know of the logger: structured lines at a level, and children
 * that carry fields. The winston logger of src/infra/log implements it; redaction happens there.
 */
export type LogFields = Record<string, unknown>;

export interface Log {
  error(message: string, fields?: LogFields): unknown;
  warn(message: string, fields?: LogFields): unknown;
  info(message: string, fields?: LogFields): unknown;
  debug(message: string, fields?: LogFields): unknown;
  child(fields: LogFields): Log;
}
