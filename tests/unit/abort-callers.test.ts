/** onAbort (core/abort.ts): many callers of one signal behind one listener, each called once, in order. */
import { getEventListeners } from 'node:events';
import { onAbort } from '../../src/core/abort.js';

describe('onAbort', () => {
  it('calls every caller once when the signal aborts, in the order they came, but not those who stopped', () => {
    const controller = new AbortController();
    const called: number[] = [];
    const stops = Array.from({ length: 1000 }, (_, i) => onAbort(controller.signal, () => called.push(i)));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    stops[3]!();
    stops[3]!(); // twice is harmless
    controller.abort();
    controller.abort();
    expect(called).toEqual(Array.from({ length: 1000 }, (_, i) => i).filter((i) => i !== 3));
  });

  it('calls at once for a signal already aborted, and keeps a function given twice as two callers', () => {
    const controller = new AbortController();
    let n = 0;
    const fn = () => { n += 1; };
    onAbort(controller.signal, fn);
    const stopSecond = onAbort(controller.signal, fn);
    onAbort(controller.signal, fn);
    stopSecond();
    controller.abort();
    expect(n).toBe(2);
    onAbort(controller.signal, fn);
    expect(n).toBe(3);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('does not call a caller that an earlier one stopped during the abort, as EventTarget does not', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    let stopB: () => void = () => undefined;
    onAbort(controller.signal, () => { calls.push('a'); stopB(); });
    stopB = onAbort(controller.signal, () => calls.push('b'));
    onAbort(controller.signal, () => calls.push('c'));
    controller.abort();
    expect(calls).toEqual(['a', 'c']);
  });
});
