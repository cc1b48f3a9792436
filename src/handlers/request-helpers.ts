/** Small request mappings shared by handlers. */
import { DEFAULT_LIMIT } from '../core/cursor.js';
import type { RequestContext } from './types.js';

/** limit (default 50) and cursor from a list operation's query. */
export const pageQuery = (q: { limit?: number; cursor?: string }): { limit: number; cursor?: string } =>
  ({ limit: q.limit ?? DEFAULT_LIMIT, ...(q.cursor ? { cursor: q.cursor } : {}) });

/** Where a request comes from, for audit records and rate limits. */
export const requestMeta = (ctx: RequestContext): { ip: string; userAgent: string | undefined } =>
  ({ ip: ctx.ip, userAgent: ctx.userAgent });

/** What the browser proves of earlier sign-ins: its session (rotated on sign-in) and device cookies. */
export const browserProof = (ctx: RequestContext) => ({ sessionToken: ctx.sessionToken, deviceTokens: ctx.deviceTokens });
