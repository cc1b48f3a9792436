/** The ports of the events feature: the outbox rows are written through, and their history. */
import type { ChangeEvent } from './model.js';

/** An event as the outbox numbered it: `seq` increases with no gaps across the whole store. */
export interface SequencedEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  /** Set when only this user's streams may carry it (ChangeEvent.userId). */
  userId?: string;
}

/** Writes events with the change they tell of (in its transaction, when bound to one). */
export interface Outbox {
  add(events: readonly ChangeEvent[]): Promise<void>;
}

/** The numbered events the store keeps (for the retention window). */
export interface EventHistory {
  /** Events after `seq`, in order, at most `limit`. */
  since(seq: number, limit: number): Promise<SequencedEvent[]>;
  /** The newest seq given (0 when none) and the oldest kept (null when none). */
  bounds(): Promise<{ latest: number; oldest: number | null }>;
}

/** The bus the relays publish numbered events on (Redis pub/sub). */
export interface EventBusSource {
  subscribe(listener: (event: { seq?: number; type: string; data: Record<string, unknown>; userId?: string }) => void): Promise<() => Promise<void>>;
}
