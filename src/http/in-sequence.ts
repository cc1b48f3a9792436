import type { RequestHandler } from 'express';

/**
 * Middlewares run one after another as one layer of Express's router. Each layer costs Express a
 * walk (its path matched, its parameters processed, a try around the call); the request's own
 * steps before an operation (request id and log, headers, CORS, the probes' and the pages' lanes,
 * routing, the body) were ten layers, 11 % of a kept list answer's CPU in Express's router
 * (scripts/bench/api-list.ts profile). The steps keep their order and their contract: `next()`
 * goes on to the next step, `next(err)` to the app's error handlers, and a step that throws or
 * whose promise is rejected goes there too, as Express 5 does. As for Express's router,
 * `next('route')` and a falsy value are no error (the next step runs), and `next('router')` leaves
 * the app's router.
 */
export function inSequence(steps: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err === 'router') { next('router'); return; }
      if (err && err !== 'route') { next(err); return; }
      if (i === steps.length) { next(); return; }
      const fn = steps[i++]!;
      try {
        const returned = fn(req, res, step) as unknown;
        if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') {
          (returned as PromiseLike<unknown>).then(undefined, (e: unknown) => step(e || new Error('Rejected promise')));
        }
      } catch (e) {
        step(e);
      }
    };
    step();
  };
}
