import type { Sql } from 'postgres';

export interface HeldLock {
  /** Whether the lock has been let go (by release(), or by the time limit). */
  readonly released: boolean;
  /** Lets go of the lock; resolves once its transaction has ended. */
  release(): Promise<void>;
}

/**
 * Holds `table` in ACCESS EXCLUSIVE mode in a transaction on `sql` (which must be free to give it
 * a connection of its own), and answers once the lock is taken: not after a fixed wait, which a
 * busy machine outran while the holder was still connecting. The lock is held until release(),
 * or, when `atMostMs` is given, at most that long after it was taken, so that a statement that
 * (wrongly) waits for it still ends and the test can say so through `released`.
 */
export async function holdTableLock(sql: Sql, table: string, opts: { atMostMs?: number } = {}): Promise<HeldLock> {
  let letGo!: () => void;
  const open = new Promise<void>((resolve) => { letGo = resolve; });
  let taken!: () => void;
  const locked = new Promise<void>((resolve) => { taken = resolve; });
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  const holding = sql.begin(async (tx) => {
    await tx.unsafe(`lock table ${table} in access exclusive mode`);
    taken();
    // Counted from the lock taken, not from the connecting (which a busy machine makes long).
    if (opts.atMostMs !== undefined) timer = setTimeout(letGo, opts.atMostMs);
    await open;
  }).finally(() => { released = true; clearTimeout(timer); });
  await Promise.race([locked, holding]);
  return {
    get released() { return released; },
    async release() { letGo(); await holding; },
  };
}
