/**
 * One statement for the calls that meet while the last one is out: the worker's claims and ends
 * of runs (run-engine-repo.ts), and the API's runs queued by `POST /reports/{id}/run`
 * (runs-repo.ts).
 *
 * A call goes out at once when none of its kind is on its way; while one is, the calls that come
 * wait and then go out together as one statement, so one commit (one WAL flush) and one round
 * trip serve them all. On the worker's lane, statements of one kind queued behind each other
 * 3-5 deep, each with its own commit (scripts/bench/runs.ts): batching them costs a call no
 * wait it did not already have.
 *
 * Each batch is its own transaction, so its calls commit together or not at all. When the store
 * refuses a batch of several for what one call may hold (refusedByStore: nothing of it was done),
 * each of its calls is sent again alone, so that one call's fault (a value the store refuses) is
 * that call's only; any other failure (a timeout, the connection lost, where the commit may or
 * may not have happened) is every call's, as it would have been had each gone alone. No batch
 * holds two calls with the same key (the same run claimed twice would be one row updated once):
 * the second waits for the next batch.
 */
import postgres from 'postgres';

export interface StatementBatchOptions<I, O> {
  /** Sends a batch as one statement; answers each call's result, in the calls' order. */
  send(items: readonly I[]): Promise<O[]>;
  /** Calls with the same key never share a batch. */
  keyOf(item: I): string;
  /** The most calls in one statement (default 100). */
  maxBatch?: number;
}

/**
 * A batch's rows as its statement reads them: `$1` (a jsonb array of objects, each with its place
 * `n`) unpacked as `x` with `columns` (`n int` among them). jsonb_to_recordset is planned as 100
 * rows, and a prepared statement's generic plan is made once per connection from the tables as
 * they were: planned on a small table, a batch hashed a scan of the whole table (a store grown to
 * 50,000 runs: 15 ms a claim). The range on `n` (true of every row) is planned as one row, which
 * makes a lookup by key per row the cheapest join once a table is more than a few pages, as for a
 * statement of one row.
 */
export const batchRows = (columns: string): string => `select * from jsonb_to_recordset($1::jsonb) as x(${columns}) where x.n between 0 and 1000000`;

/** Each call with its place `n`, as the batch statements take them. */
export const numbered = <T extends object>(batch: readonly T[]): Array<T & { n: number }> => batch.map((item, n) => ({ ...item, n }));

/** The statement's rows back in their calls' places (`placeOf` reads a row's `n`); undefined for a call that has none. */
export function inPlaces<R>(rows: readonly R[], count: number, placeOf: (row: R) => number): Array<R | undefined> {
  const placed = new Array<R | undefined>(count).fill(undefined);
  for (const row of rows) placed[placeOf(row)] = row;
  return placed;
}

interface Waiting<I, O> { item: I; key: string; resolve(value: O): void; reject(err: unknown): void }

/**
 * Whether the store refused the statement for what one of its calls holds, so that none of it
 * was done and each call may go again alone: a value it refuses (class 22), a constraint (23), or
 * a deadlock or serialization failure (40P01, 40001: another transaction that locks the same rows
 * in another order, such as a report's deletion cascading to its runs). Other refusals (a lock or
 * statement timeout, a server shutting down, too many connections) would refuse each call again;
 * they fail the batch's calls at once.
 */
export const refusedByStore = (err: unknown): boolean => {
  if (!(err instanceof postgres.PostgresError)) return false;
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('22') || code.startsWith('23') || code === '40P01' || code === '40001';
};

export function statementBatches<I, O>(options: StatementBatchOptions<I, O>): (item: I) => Promise<O> {
  const maxBatch = options.maxBatch ?? 100;
  let waiting: Array<Waiting<I, O>> = [];
  let out = false;

  const settle = (calls: Array<Waiting<I, O>>, results: O[]) => {
    if (results.length !== calls.length) throw new Error(`a batch of ${calls.length} answered ${results.length} results`);
    calls.forEach((c, i) => c.resolve(results[i]!));
  };

  const alone = (call: Waiting<I, O>) => options.send([call.item]).then((results) => settle([call], results)).catch(call.reject);

  const next = () => {
    if (out || waiting.length === 0) return;
    const batch: Array<Waiting<I, O>> = [];
    const keys = new Set<string>();
    const rest: Array<Waiting<I, O>> = [];
    for (const call of waiting) {
      const { key } = call;
      if (batch.length < maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(call);
      } else {
        rest.push(call);
      }
    }
    waiting = rest;
    out = true;
    let sent: Promise<O[]>;
    try {
      sent = options.send(batch.map((c) => c.item));
    } catch (err) {
      sent = Promise.reject(err);
    }
    void sent.then((results) => settle(batch, results))
      .catch((err: unknown) => {
        if (batch.length > 1 && refusedByStore(err)) return Promise.all(batch.map(alone));
        for (const call of batch) call.reject(err);
        return undefined;
      })
      .finally(() => {
        out = false;
        next();
      });
  };

  return (item: I) => new Promise<O>((resolve, reject) => {
    waiting.push({ item, key: options.keyOf(item), resolve, reject });
    next();
  });
}
