/**
 * One user statement as a stream of row batches, the part every SQL connector shares: the dialect
 * runs the statement (a SqlRun: open, fetch, cancel, check, close); this file drives it.
 *
 *   open: the dialect's read-only transaction, time limit, describe and start; an error closes
 *     the run and rejects execute() itself;
 *   the first batch (or the end, with the checks after the last row) before answering, so that
 *     refusals and errors of the statement reject execute() too;
 *   then one fetch ahead of the consumer: the next batch is on its way while the consumer works;
 *   after the last row: check (what the statement left behind: writes, locks) and close (roll
 *     back, give the connection back), the checks' refusal ending the stream;
 *   stopping early (the signal aborts, or the consumer leaves the loop): cancel what runs on the
 *     server, then close; an abort rejects at once with the signal's reason.
 */
import { abortReason } from '../../core/abort.js';
import type { CellValue, ResultColumn } from '../../domain/plugins/connector.js';
import type { DomainError } from '../../core/errors.js';

const noop = (): void => undefined;

/** One user statement on one connection, as the dialect runs it; `B` is its batch (rows by default). */
export interface SqlRun<B = CellValue[][]> {
  /**
   * Opens the read-only transaction with the statement's time limit, describes the statement
   * (refusing one that returns no rows, or whose placeholders do not match the values) and starts
   * it. Rejects with the driver's error or a DomainError; the run is then closed.
   */
  open(): Promise<void>;
  /** The result's columns, known once the first fetch has answered. */
  readonly columns: ResultColumn[];
  /** The next batch (at most batchSize decoded rows), or null after the last. Never called twice at once. */
  fetch(): Promise<B | null>;
  /**
   * Stops the statement early: cancels what runs on the server. When it resolves, nothing of the
   * statement runs on the connection any more, or the run has decided to destroy the connection
   * on close. Called at most once, after open succeeded; never rejects.
   */
  cancel(): Promise<void>;
  /** After the last row: throws query.not_read_only for what the statement left behind (writes, locks). */
  check(): Promise<void>;
  /** Rolls back and gives the connection back (destroys it when in doubt). Called once; never rejects. */
  close(): Promise<void>;
}

/**
 * Awaits `send()`'s promise (sent only when the signal has not aborted yet); on abort calls
 * `cancel` (stops it on the server; must not throw) and throws the signal's reason.
 */
export async function cancellable<T>(signal: AbortSignal, send: () => Promise<T>, cancel: () => void): Promise<T> {
  if (signal.aborted) throw abortReason(signal);
  const onAbort = (): void => { cancel(); };
  signal.addEventListener('abort', onAbort, { once: true });
  let result: T;
  try {
    result = await send();
  } catch (err) {
    if (signal.aborted) throw abortReason(signal);
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  // Aborted after the server had answered: the caller must not go on.
  if (signal.aborted) throw abortReason(signal);
  return result;
}

/** A row of driver values as CellValues: null stays null, every other value goes through its column's decoder. */
export function decodeRow<V>(raw: ArrayLike<V | null | undefined>, decoders: ReadonlyArray<(value: V) => CellValue>): CellValue[] {
  const row = new Array<CellValue>(raw.length);
  for (let c = 0; c < raw.length; c += 1) {
    const v = raw[c];
    row[c] = v === null || v === undefined ? null : decoders[c]!(v);
  }
  return row;
}

/** An integer given as text: a number when exactly representable (within ±2^53), else the text. */
export function integerOrText(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** Runs `run` and answers its rows as a RowStream (see the file comment). */
export async function streamRows<B = CellValue[][]>(
  run: SqlRun<B>, signal: AbortSignal, statementError: (err: unknown) => DomainError,
): Promise<{ columns: ResultColumn[]; batches: AsyncIterable<B> }> {
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => (closing ??= run.close());

  try {
    await run.open();
  } catch (err) {
    await close();
    throw signal.aborted ? abortReason(signal) : statementError(err);
  }

  /** After the last row: refuse what the statement left behind, then close. */
  const finish = async (): Promise<void> => {
    try { await run.check(); } finally { await close(); }
  };

  let pending: Promise<B | null> = Promise.resolve(null);
  let finishing: Promise<void> | null = null;
  let tearingDown: Promise<void> | null = null;

  /** Asks for the next batch (one ahead of the consumer); after the last, starts finish(). */
  const fetchNext = (): Promise<B | null> => {
    const p = run.fetch().then((batch) => {
      // finish() may reject (a write, a lock) before the consumer comes for it: a handler now, so
      // that rejection is never unhandled; the consumer still awaits it.
      if (batch === null && !finishing && !tearingDown) { finishing = finish(); finishing.catch(noop); }
      return batch;
    });
    p.catch(noop);
    pending = p;
    return p;
  };

  /** Stops early: cancels on the server, then closes (or waits for the finish under way). Idempotent. */
  const teardown = (): Promise<void> => {
    tearingDown ??= (async () => {
      await run.cancel();
      if (finishing) { await finishing.catch(noop); return; }
      await close();
    })();
    return tearingDown;
  };

  /**
   * A fetch, or the signal's reason as soon as it aborts (a fetch waiting on a stopped statement
   * may never answer). Not Promise.race against one long-lived promise: every race would stay
   * subscribed to it, and keep its batch, until the stream ends.
   */
  const raced = <T>(p: Promise<T>): Promise<T> => new Promise<T>((resolve, reject) => {
    if (signal.aborted) { reject(abortReason(signal)); return; }
    const onAborted = (): void => { reject(abortReason(signal)); };
    signal.addEventListener('abort', onAborted, { once: true });
    p.then(resolve, reject).finally(() => { signal.removeEventListener('abort', onAborted); });
  });
  const onAbort = (): void => { void teardown(); };
  signal.addEventListener('abort', onAbort, { once: true });
  const stopped = (): boolean => signal.aborted || tearingDown !== null;
  const fail = (err: unknown): unknown => (signal.aborted ? abortReason(signal) : statementError(err));

  let columns: ResultColumn[];
  let first: B | null = null;
  try {
    if (signal.aborted) throw abortReason(signal);
    const batch = await raced(fetchNext());
    if (stopped()) throw abortReason(signal);
    columns = run.columns;
    if (batch) { first = batch; void fetchNext(); } else await finishing;
  } catch (err) {
    signal.removeEventListener('abort', onAbort);
    await teardown();
    throw fail(err);
  }

  async function* batches(): AsyncGenerator<B> {
    let complete = false;
    try {
      if (first) { const b = first; first = null; yield b; }
      for (;;) {
        if (stopped()) throw abortReason(signal);
        const batch = await raced(pending);
        if (batch === null) {
          if (!finishing) throw abortReason(signal); // stopped while the end arrived
          await finishing;
          break;
        }
        if (stopped()) throw abortReason(signal);
        void fetchNext();
        yield batch;
      }
      complete = true;
    } catch (err) {
      throw fail(err);
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (!complete) await teardown();
    }
  }

  return { columns, batches: batches() };
}
