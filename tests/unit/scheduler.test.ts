/**
 * The scheduler's tick loop: a tick counts as completed (for readiness) only when every task of
 * it succeeded; ticks repeat at the interval; stop waits for the tick in progress.
 */
import { createScheduler, type TickTask } from '../../src/main/scheduler.js';
import type { Logger } from '../../src/infra/log/logger.js';

function quietLogger(errors: unknown[] = []): Logger {
  const logger = {
    info: () => logger, warn: () => logger, debug: () => logger,
    error: (_m: string, meta: unknown) => { errors.push(meta); return logger; },
  };
  return logger as unknown as Logger;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('records a completed tick after its tasks succeed, and ticks again at the interval', async () => {
  const seen: Date[] = [];
  const task: TickTask = { name: 'count', run: async (now) => { seen.push(now); } };
  const s = createScheduler({ tickSeconds: 1, tasks: [task], logger: quietLogger() });
  expect(s.lastTickAt()).toBeUndefined();
  s.start();
  await sleep(2300); // node-cron wakes the loop every second: ticks at about 0, 1 and 2 s
  await s.stop();
  expect(seen.length).toBeGreaterThanOrEqual(2);
  expect(s.lastTickAt()!.getTime()).toBeGreaterThanOrEqual(seen[seen.length - 1]!.getTime());
  const after = seen.length;
  await sleep(1200);
  expect(seen.length).toBe(after); // nothing runs once stopped
});

it('does not count a tick whose task failed, logs the failure, and keeps ticking', async () => {
  const errors: unknown[] = [];
  let calls = 0;
  const failing: TickTask = { name: 'broken', run: async () => { calls += 1; throw new Error('boom'); } };
  const s = createScheduler({ tickSeconds: 1, tasks: [failing], logger: quietLogger(errors) });
  s.start();
  await sleep(2300);
  await s.stop();
  expect(calls).toBeGreaterThanOrEqual(2);
  expect(s.lastTickAt()).toBeUndefined();
  expect(errors[0]).toMatchObject({ task: 'broken' });
});

it('waits in stop() for the tick in progress', async () => {
  let finished = false;
  const slow: TickTask = { name: 'slow', run: async () => { await sleep(100); finished = true; } };
  const s = createScheduler({ tickSeconds: 5, tasks: [slow], logger: quietLogger() });
  s.start();
  await sleep(10);
  await s.stop();
  expect(finished).toBe(true);
});

it('counts a tick whose only failure is in housekeeping (essential: false)', async () => {
  const errors: unknown[] = [];
  const housekeeping: TickTask = { name: 'housekeeping', essential: false, run: async () => { throw new Error('slow store'); } };
  const s = createScheduler({ tickSeconds: 1, tasks: [housekeeping], logger: quietLogger(errors) });
  s.start();
  await sleep(80);
  await s.stop();
  expect(s.lastTickAt()).toBeDefined();
  expect(errors.length).toBeGreaterThanOrEqual(1);
});
