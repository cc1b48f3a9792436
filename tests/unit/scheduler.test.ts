/**
 * The scheduler's tick loop: a tick counts as completed (for readiness) only when every task of
 * it succeeded; ticks repeat at the interval; stop waits for the tick in progress. The loop runs
 * on a manual clock here: the tests move it instead of waiting for ticks.
 */
import { manualClock } from '../../src/core/clock.js';
import { createScheduler, type TickTask } from '../../src/main/scheduler.js';
import type { Logger } from '../../src/infra/log/logger.js';

function quietLogger(errors: unknown[] = []): Logger {
  const logger = {
    info: () => logger, warn: () => logger, debug: () => logger,
    error: (_m: string, meta: unknown) => { errors.push(meta); return logger; },
  };
  return logger as unknown as Logger;
}

/** Lets the tick that a move of the clock started run to its end. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

it('records a completed tick after its tasks succeed, and ticks again at the interval', async () => {
  const clock = manualClock(new Date('2026-11-25T10:00:00.000Z'));
  const seen: Date[] = [];
  const task: TickTask = { name: 'count', run: async (now) => { seen.push(now); } };
  const s = createScheduler({ tickSeconds: 1, tasks: [task], logger: quietLogger(), clock });
  expect(s.lastTickAt()).toBeUndefined();
  s.start();
  await settle();
  clock.advance(999);
  await settle();
  expect(seen).toHaveLength(1); // not before the interval
  clock.advance(1);
  await settle();
  clock.advance(1000);
  await settle();
  await s.stop();
  expect(seen.length).toBeGreaterThanOrEqual(2);
  expect(seen.map((d) => d.getTime() - seen[0]!.getTime())).toEqual([0, 1000, 2000]);
  expect(s.lastTickAt()!.getTime()).toBeGreaterThanOrEqual(seen[seen.length - 1]!.getTime());
  const after = seen.length;
  clock.advance(5000);
  await settle();
  expect(seen.length).toBe(after); // nothing runs once stopped
});

it('does not count a tick whose task failed, logs the failure, and keeps ticking', async () => {
  const clock = manualClock();
  const errors: unknown[] = [];
  let calls = 0;
  const failing: TickTask = { name: 'broken', run: async () => { calls += 1; throw new Error('boom'); } };
  const s = createScheduler({ tickSeconds: 1, tasks: [failing], logger: quietLogger(errors), clock });
  s.start();
  for (let i = 0; i < 2; i += 1) {
    await settle();
    clock.advance(1000);
  }
  await settle();
  await s.stop();
  expect(calls).toBeGreaterThanOrEqual(2);
  expect(s.lastTickAt()).toBeUndefined();
  expect(errors[0]).toMatchObject({ task: 'broken' });
});

it('starts a tick that fell due while the last one ran as soon as that ends, never two at once', async () => {
  const clock = manualClock();
  let release!: () => void;
  let running = 0;
  let most = 0;
  let calls = 0;
  const slow: TickTask = {
    name: 'slow',
    run: async () => {
      calls += 1;
      running += 1;
      most = Math.max(most, running);
      if (calls === 1) await new Promise<void>((resolve) => { release = resolve; });
      running -= 1;
    },
  };
  const s = createScheduler({ tickSeconds: 1, tasks: [slow], logger: quietLogger(), clock });
  s.start();
  await settle();
  clock.advance(3000); // due twice while the first tick runs: one more tick, after it
  await settle();
  expect(calls).toBe(1);
  release();
  await settle();
  await s.stop();
  expect(calls).toBe(2);
  expect(most).toBe(1);
});

it('waits in stop() for the tick in progress', async () => {
  let finished = false;
  let started!: () => void;
  const begun = new Promise<void>((resolve) => { started = resolve; });
  const slow: TickTask = { name: 'slow', run: async () => { started(); await new Promise((r) => setTimeout(r, 100)); finished = true; } };
  const s = createScheduler({ tickSeconds: 5, tasks: [slow], logger: quietLogger() });
  s.start();
  await begun;
  await s.stop();
  expect(finished).toBe(true);
});

it('counts a tick whose only failure is in housekeeping (essential: false)', async () => {
  const errors: unknown[] = [];
  const housekeeping: TickTask = { name: 'housekeeping', essential: false, run: async () => { throw new Error('slow store'); } };
  const s = createScheduler({ tickSeconds: 1, tasks: [housekeeping], logger: quietLogger(errors), clock: manualClock() });
  s.start();
  await settle();
  await s.stop();
  expect(s.lastTickAt()).toBeDefined();
  expect(errors.length).toBeGreaterThanOrEqual(1);
});

it('wakes at the start of each minute of the store\'s clock, not a whole tick later', async () => {
  // A 10 s tick that began 5.5 s before a minute: the next tick is at the minute (plus 20 ms), then every 10 s again.
  const clock = manualClock(new Date('2026-11-25T10:00:54.500Z'));
  const seen: number[] = [];
  const task: TickTask = { name: 'count', run: async (now) => { seen.push(now.getTime()); } };
  const s = createScheduler({ tickSeconds: 10, tasks: [task], logger: quietLogger(), clock });
  s.start();
  await settle();
  clock.advance(5_519);
  await settle();
  expect(seen).toHaveLength(1);
  clock.advance(1);
  await settle();
  expect(seen.map((t) => new Date(t).toISOString())).toEqual(['2026-11-25T10:00:54.500Z', '2026-11-25T10:01:00.020Z']);
  clock.advance(10_000);
  await settle();
  expect(seen.at(-1)).toBe(Date.parse('2026-11-25T10:01:10.020Z'));
  await s.stop();

  // The store's clock 3 s ahead of the process's: the minute is the store's (its time decides what is due).
  const local = manualClock(new Date('2026-11-25T10:00:50.000Z'));
  const storeSeen: number[] = [];
  const ahead = createScheduler({
    tickSeconds: 10, tasks: [{ name: 'count', run: async (now) => { storeSeen.push(now.getTime()); } }], logger: quietLogger(), clock: local,
    time: async () => new Date(local.now().getTime() + 3_000),
  });
  ahead.start();
  await settle();
  local.advance(7_020);
  await settle();
  expect(storeSeen.map((t) => new Date(t).toISOString())).toEqual(['2026-11-25T10:00:53.000Z', '2026-11-25T10:01:00.020Z']);
  await ahead.stop();
});
