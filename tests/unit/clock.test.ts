/**
 * The manual clock: its timers fire when it is moved past them, in the order of their times,
 * each with the clock at its own time; cancelled ones never fire; sleep honours its signal.
 */
import { manualClock, systemClock } from '../../src/core/clock.js';

const T0 = new Date('2026-11-25T10:00:00.000Z');

it('fires the timers due within a move, in order of their times, each at its own time', () => {
  const clock = manualClock(T0);
  const fired: Array<[string, number]> = [];
  const at = () => clock.now().getTime() - T0.getTime();
  clock.timer(300, () => fired.push(['c', at()]));
  clock.timer(100, () => fired.push(['a', at()]));
  clock.timer(100, () => fired.push(['b', at()])); // same time: in the order they were set
  clock.timer(1000, () => fired.push(['late', at()]));
  clock.advance(299);
  expect(fired).toEqual([['a', 100], ['b', 100]]);
  expect(at()).toBe(299);
  clock.advance(1);
  expect(fired).toEqual([['a', 100], ['b', 100], ['c', 300]]);
  expect(clock.pendingTimers()).toBe(1);
});

it('fires a timer set by another within the same move, and never a cancelled one', () => {
  const clock = manualClock(T0);
  const fired: number[] = [];
  const every = (ms: number) => { clock.timer(ms, () => { fired.push(clock.now().getTime() - T0.getTime()); every(ms); }); };
  every(200);
  const cancelled = clock.timer(500, () => fired.push(-1));
  cancelled.cancel();
  clock.advance(1000);
  expect(fired).toEqual([200, 400, 600, 800, 1000]);
});

it('set moves forward like advance and backward without firing anything', () => {
  const clock = manualClock(T0);
  let fired = 0;
  clock.timer(60_000, () => { fired += 1; });
  clock.set(new Date(T0.getTime() - 3600_000));
  expect(fired).toBe(0);
  clock.set(new Date(T0.getTime() + 3600_000));
  expect(fired).toBe(1);
  expect(clock.now()).toEqual(new Date(T0.getTime() + 3600_000));
});

it('sleep resolves when the clock passes its time and rejects with the signal\'s reason when aborted first', async () => {
  const clock = manualClock(T0);
  let woke = false;
  const sleeping = clock.sleep(5000).then(() => { woke = true; });
  clock.advance(4999);
  await Promise.resolve();
  expect(woke).toBe(false);
  clock.advance(1);
  await sleeping;
  expect(woke).toBe(true);

  const stop = new AbortController();
  const stopped = clock.sleep(5000, stop.signal);
  stop.abort(new Error('stopped'));
  await expect(stopped).rejects.toThrow('stopped');
  expect(clock.pendingTimers()).toBe(0);
  await expect(clock.sleep(1, stop.signal)).rejects.toThrow('stopped');
});

it('the system clock\'s timers run on real time', async () => {
  const started = performance.now();
  await systemClock.sleep(20);
  expect(performance.now() - started).toBeGreaterThanOrEqual(15);
  let fired = false;
  systemClock.timer(10, () => { fired = true; }).cancel();
  await systemClock.sleep(30);
  expect(fired).toBe(false);
});
