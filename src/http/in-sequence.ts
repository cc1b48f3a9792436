import type { RequestHandler } from 'express';

/**
 * Middlewares run one after another as one layer of Express's router. Each layer costs Express a
 * walk (its path matched, its parameters processed, a try around the call); the request's own
 * steps before an operation (request id and log, headers, CORS, the probes' and the pages' lanes,
 * routing, the body) were ten layers, 11 % of a kept list answer's CPU in Express's router
 * (scripts/bench/api-list.ts profile). The steps keep their order and their contract: `next()`
 * goes on to the next step, `next(err)` to the app's error handlers, and a step that throws or
 * whose promise is rejected goes there too, as Express 5 does. (None of them says `next('route')`
 * or `next('router')`: those belong to a router's own layers.)
 */
export function inSequence(steps: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) { next(err); return; }
      if (i === steps.length) { next(); return; }
      const fn = steps[i++]!;
      try {
        const returned = fn(req, res, step) as unknown;
        if (returned instanceof Promise) returned.then(undefined, (e: unknown) => step(e ?? new Error('Rejected promise')));
      } catch (e) {
        step(e);
      }
    };
    step();
  };
}
