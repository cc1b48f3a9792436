/**
 * The audit trail of security-relevant actions. Nothing secret is ever recorded: callers pass
 * ids, codes and non-secret details only.
 */
import { newId } from '../../core/ids.js';
import type { Clock } from '../../core/clock.js';
import type { SecurityEventRecord, SecurityEventType, ActorType } from '../identity/model.js';
import type { SecurityEventsRepo } from '../identity/ports.js';

export type { SecurityEventType };

/** Who acted and from where. */
export interface Actor {
  type: ActorType;
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

/**
 * Records an event at the moment of recording (not a transaction's start, nor a time taken
 * before a lock wait), so that occurred_at follows the UUIDv7 id order.
 */
export async function recordSecurityEvent(events: SecurityEventsRepo, e: SecurityEventInput, clock: Clock): Promise<void> {
  const record: SecurityEventRecord = {
    id: newId(),
    occurredAt: clock.now(),
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
  };
  await events.insert(record);
}

/** Reading the trail (admins). */
export function createSecurityEventsService(deps: { events: SecurityEventsRepo }) {
  return {
    list: (q: Parameters<SecurityEventsRepo['list']>[0]) => deps.events.list(q),
  };
}

export type SecurityEventsService = ReturnType<typeof createSecurityEventsService>;
