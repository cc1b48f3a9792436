/** Waiting under an AbortSignal. Pure helpers. */

/** Why a signal aborted: its reason, or a standard AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/**
 * Waits for a resource (a pooled connection) unless `signal` aborts first. A resource that
 * arrives after the abort is handed back with `release`, so an abandoned wait never holds it.
 * A failure is told through `failure` (which sees whether the signal aborted meanwhile).
 */
export function acquireUnlessAborted<T>(
  pending: Promise<T>, signal: AbortSignal, release: (value: T) => void, failure: (err: unknown) => unknown,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      pending.then(release, () => undefined);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then((value) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) release(value);
      else resolve(value);
    }, (err: unknown) => {
      signal.removeEventListener('abort', onAbort);
      reject(failure(err));
    });
  });
}

/** Each signal's callers of onAbort(), behind the one listener it has for them all. */
const callers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `fn` once when `signal` aborts (at once when it has); the answer stops that. For a signal
 * many wait on at once (the process's drain, which every open request and event stream watches):
 * EventTarget compares each listener added or removed with every one already there, so ten
 * thousand event streams each adding two made opening them quadratic (4.5 s of CPU in
 * addEventListener, ~1 s in removeEventListener, measured with 10,000 streams). Here the signal has
 * one listener, and each caller is an entry of a Set.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) { fn(); return () => undefined; }
  let set = callers.get(signal);
  if (!set) {
    const all = new Set<() => void>();
    set = all;
    callers.set(signal, all);
    signal.addEventListener('abort', () => {
      // Each caller leaves the Set as it is called, so one stopped by an earlier caller during
      // this dispatch is not called (as with EventTarget); none can join now, the signal has
      // aborted. As EventTarget does: one caller's failure does not keep the others from being called.
      for (const call of all) {
        all.delete(call);
        try { call(); } catch (err) { queueMicrotask(() => { throw err; }); }
      }
    }, { once: true });
  }
  const entry = (): void => fn();
  set.add(entry);
  return () => { set.delete(entry); };
}
