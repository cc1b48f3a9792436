/**
 * The audit trail of security-relevant actions. Nothing secret is ever recorded: callers pass
 * ids, codes and non-secret details only.
 */
import { and, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import { securityEvents } from '../../infra/db/schema.js';
import type { Tx } from '../../infra/db/client.js';
import { newId } from '../../core/ids.js';
import { decodeStringCursor, toPage, type Page } from '../../core/cursor.js';

export type SecurityEventType =
  | 'setup.completed'
  | 'auth.sign_in' | 'auth.sign_out'
  | 'auth.password_changed' | 'auth.password_reset_requested' | 'auth.password_reset_completed'
  | 'session.revoked' | 'session.revoked_all'
  | 'api_key.created' | 'api_key.revoked' | 'api_key.rejected'
  | 'user.created' | 'user.role_changed' | 'user.enabled_changed' | 'user.password_reset_by_admin';

/** Who acted and from where. */
export interface Actor {
  type: 'user' | 'api_key' | 'anonymous';
  userId?: string | null;
  apiKeyId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

export interface SecurityEventInput {
  type: SecurityEventType;
  outcome?: 'success' | 'failure';
  reason?: string;
  actor: Actor;
  target?: { type: string; id: string };
  /** The user the event is about (filter key). */
  userId?: string | null;
  details?: Record<string, string | number | boolean | null>;
}

export async function recordSecurityEvent(tx: Tx, e: SecurityEventInput): Promise<void> {
  await tx.insert(securityEvents).values({
    id: newId(),
    // The moment of recording (not the transaction's start, which now() would give), so that
    // occurred_at follows the UUIDv7 id order.
    occurredAt: new Date(),
    type: e.type,
    outcome: e.outcome ?? 'success',
    reason: e.reason ?? null,
    actorType: e.actor.type,
    actorUserId: e.actor.userId ?? null,
    actorApiKeyId: e.actor.apiKeyId ?? null,
    targetType: e.target?.type ?? null,
    targetId: e.target?.id ?? null,
    subjectUserId: e.userId ?? null,
    ip: e.actor.ip ?? null,
    userAgent: e.actor.userAgent?.slice(0, 512) ?? null,
    details: e.details ?? {},
  });
}

export type SecurityEventRow = typeof securityEvents.$inferSelect;

export async function listSecurityEvents(
  db: Tx, q: { limit: number; cursor?: string; type?: string; userId?: string },
): Promise<Page<SecurityEventRow>> {
  const conditions: SQL[] = [];
  if (q.type) conditions.push(eq(securityEvents.type, q.type));
  if (q.userId) {
    conditions.push(or(eq(securityEvents.subjectUserId, q.userId), eq(securityEvents.actorUserId, q.userId))!);
  }
  if (q.cursor) {
    const [id] = decodeStringCursor(q.cursor, 1);
    conditions.push(lt(securityEvents.id, id!));
  }
  // UUIDv7 ids increase with time, so id order is newest-first order.
  const rows = await db.select().from(securityEvents).where(and(...conditions))
    .orderBy(desc(securityEvents.id)).limit(q.limit + 1);
  return toPage(rows, q.limit, (r) => [r.id], (r) => r);
}
