/**
 * The events feature's ports in memory: an outbox that numbers what it is given (rolled back with
 * the unit of work).
 */
import type { ChangeEvent } from '../../../src/domain/events/model.js';
import type { Outbox, SequencedEvent } from '../../../src/domain/events/ports.js';
import type { Transactional } from './table.js';

export class FakeOutbox implements Outbox, Transactional {
  events: SequencedEvent[] = [];

  async add(events: readonly ChangeEvent[]): Promise<void> {
    for (const e of events) {
      this.events.push({ seq: this.events.length + 1, type: e.type, data: structuredClone(e.data), ...(e.userId !== undefined ? { userId: e.userId } : {}) });
    }
  }

  /** The events' types, in order. */
  types(): string[] {
    return this.events.map((e) => e.type);
  }

  snapshot(): () => void {
    const length = this.events.length;
    return () => { this.events.length = length; };
  }
}
