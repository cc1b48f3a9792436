/**
 * A relay woken at any moment of a pass's end runs another pass: no wake is lost between the
 * loop's last look at whether it was woken and the moment it says it is no longer running (it
 * would then wait for the safety net's timer, two seconds, or the next commit's notification).
 * Without a store: the log answers from memory.
 */
import type { Sql } from 'postgres';
import { createRelay } from '../../src/infra/events/relay.js';
import type { EventLog, SequencedRow } from '../../src/infra/db/stores/events-repo.js';

/** Resolves after `depth` turns of the microtask queue. */
const microtasks = async (depth: number): Promise<void> => {
  for (let i = 0; i < depth; i += 1) await Promise.resolve();
};

test.each(Array.from({ length: 16 }, (_, depth) => depth))('a wake %i microtasks after a pass found nothing makes another pass', async (depth) => {
  let claims = 0;
  const log = {
    claim: async () => { claims += 1; return [] as SequencedRow[]; },
    release: async () => undefined,
  } as unknown as EventLog;
  const errors: unknown[] = [];
  const relay = createRelay({
    sql: undefined as unknown as Sql, // start() is not called: no LISTEN
    log,
    publish: async () => undefined,
    onError: (err) => { errors.push(err); },
    lingerMs: 0,
    everyMs: 60_000,
  });
  relay.wake();
  expect(claims).toBe(1); // the first pass claimed at once
  await microtasks(depth);
  relay.wake();
  // Whatever the moment, a second pass runs soon (not at the minute's timer).
  for (let i = 0; i < 50 && claims < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 2));
  expect(claims).toBe(2);
  expect(errors).toEqual([]);
  await relay.stop();
});
