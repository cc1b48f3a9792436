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
