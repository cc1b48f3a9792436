/**
 * The outbox relay lingers when busy (src/infra/events/relay.ts LINGER_MS): a quiet relay passes at
 * once when the store tells it of new events, but a pass woken within the linger of the last one's
 * start waits for its end and then takes every event written meanwhile: a burst of commits makes a
 * few passes, not one each. Every event is still published, once, in order. On a real store
 * (events numbered by herald_relay_events, woken by the outbox trigger's NOTIFY).
 */
import { createDb } from '../../src/infra/db/client.js';
import { createEventLog, outboxRepo, type SequencedRow } from '../../src/infra/db/stores/events-repo.js';
import { createRelay, type Relay } from '../../src/infra/events/relay.js';
import { isolate, type Isolated } from '../support/isolation.js';
import { until } from '../support/wait.js';

let iso: Isolated;
let store: ReturnType<typeof createDb>;

beforeAll(async () => {
  iso = await isolate();
  store = createDb(iso.databaseUrl);
});

afterAll(async () => {
  await store?.sql.end();
  await iso?.release();
});

/** A relay on the store whose passes (claims) are counted with the time each started. */
function countedRelay(lingerMs: number) {
  const log = createEventLog(store.db);
  const passes: number[] = [];
  const published: SequencedRow[][] = [];
  const errors: unknown[] = [];
  const relay: Relay = createRelay({
    sql: store.sql,
    log: { ...log, claim: (limit: number) => { passes.push(performance.now()); return log.claim(limit); } },
    publish: async (rows) => { published.push(rows); },
    onError: (err) => { errors.push(err); },
    lingerMs,
    everyMs: 60_000,
  });
  return { relay, passes, published, errors };
}

test('a burst of commits is relayed in a few passes, each a linger after the last, every event once and in order', async () => {
  const lingerMs = 250;
  const { relay, passes, published, errors } = countedRelay(lingerMs);
  await relay.start();
  await until(() => passes.length >= 1, 'the start\'s own pass');
  const outbox = outboxRepo(store.db);
  // 40 commits, each with its own event and NOTIFY, as a busy worker's runs end.
  for (let i = 0; i < 40; i += 1) await outbox.add([{ type: 'run.updated', data: { id: `r${i}` } }]);
  await until(() => published.flat().length === 40, 'every event published');
  // The passes that published them. (A NOTIFY heard after the pass that took its event wakes the
  // relay again, and stop() ends that wake's linger at once, as it should: its empty pass is
  // stop()'s, not the linger's. CI saw one 75 ms after the last.)
  const lingered = [...passes];
  await relay.stop();
  const ids = published.flat().map((e) => e.data.id);
  expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => `r${i}`));
  const seqs = published.flat().map((e) => e.seq);
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  // Each pass started at least a linger after the one before (a lower bound: never flaky).
  // (5 ms of slack: a timer may fire a millisecond early by performance.now().)
  for (let i = 1; i < lingered.length; i += 1) expect(lingered[i]! - lingered[i - 1]!).toBeGreaterThanOrEqual(lingerMs - 5);
  // Forty notifications; without the linger a pass ran for nearly each.
  expect(lingered.length).toBeLessThan(40);
  expect(errors).toEqual([]);
});

test('a quiet relay passes at once when woken', async () => {
  const { relay, passes } = countedRelay(60_000);
  relay.wake();
  expect(passes).toHaveLength(1); // started synchronously: no linger before the first pass
  await relay.stop(); // ends at once, though a pass woken now would linger a minute
  relay.wake();
  expect(passes).toHaveLength(1);
});

test('stopping ends a linger at once, and its pass still publishes what was written', async () => {
  const { relay, passes, published, errors } = countedRelay(60_000);
  relay.wake();
  await until(() => passes.length === 1, 'the first pass');
  await new Promise((resolve) => setTimeout(resolve, 50)); // the first pass is over
  await outboxRepo(store.db).add([{ type: 'run.updated', data: { id: 'last' } }]);
  relay.wake(); // lingers: the last pass started less than a minute ago
  const before = published.flat().length;
  await relay.stop(); // a minute's linger would time the test out
  expect(passes).toHaveLength(2);
  expect(published.flat().slice(before).map((e) => e.data.id)).toEqual(['last']);
  expect(errors).toEqual([]);
});
