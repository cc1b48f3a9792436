/** The security events (audit) repository in memory; `failNext` makes the next insert throw, as a trigger that raises would. */
import type { Page, PageRequest } from '../../../src/core/cursor.js';
import type { SecurityEventRecord } from '../../../src/domain/identity/model.js';
import type { SecurityEventsRepo } from '../../../src/domain/identity/ports.js';
import { MemoryTable, pageOf, type Transactional } from './table.js';

export class FakeSecurityEvents implements SecurityEventsRepo, Transactional {
  readonly rows = new MemoryTable<SecurityEventRecord>();
  private failure: Error | undefined;

  /** The next insert throws this error (once). */
  failNext(err = new Error('the security event could not be written')): void {
    this.failure = err;
  }

  async insert(event: SecurityEventRecord): Promise<void> {
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure;
    this.rows.put(event);
  }

  async list(q: PageRequest & { type?: string | undefined; userId?: string | undefined }): Promise<Page<SecurityEventRecord>> {
    const rows = this.rows.all()
      .filter((e) => (q.type === undefined || e.type === q.type) && (q.userId === undefined || e.subjectUserId === q.userId || e.actorUserId === q.userId))
      .sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime() || b.id.localeCompare(a.id));
    return pageOf(rows, q);
  }

  /** The events' types, oldest first. */
  types(): string[] {
    return this.rows.all().sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime()).map((e) => e.type);
  }

  snapshot(): () => void {
    return this.rows.snapshot();
  }
}
