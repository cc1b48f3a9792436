/**
 * Steps run as one Express layer keep their order and Express's contract: next() goes on, next(err),
 * a throw and a rejected promise go to the app's error handlers, and the last step's next() leaves
 * the sequence (through a real Express app and HTTP).
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { inSequence } from '../../src/http/in-sequence.js';

function appWith(fail?: 'next' | 'throw' | 'reject') {
  const seen: string[] = [];
  const app = express();
  app.use(inSequence([
    (_req, _res, next) => { seen.push('one'); next(); },
    (_req, _res, next) => {
      seen.push('two');
      if (fail === 'next') { next(new Error('by next')); return; }
      if (fail === 'throw') throw new Error('by throw');
      if (fail === 'reject') return Promise.reject(new Error('by rejection')) as never;
      setImmediate(next); // a step that goes on later
    },
    (_req, _res, next) => { seen.push('three'); next(); },
  ]));
  app.get('/', (_req, res) => { seen.push('route'); res.send('ok'); });
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => { seen.push(`error: ${err.message}`); res.status(500).send(err.message); });
  return { app, seen };
}

it('runs the steps in order, then the app\'s next layer', async () => {
  const { app, seen } = appWith();
  await request(app).get('/').expect(200, 'ok');
  expect(seen).toEqual(['one', 'two', 'three', 'route']);
});

it.each([['next', 'by next'], ['throw', 'by throw'], ['reject', 'by rejection']] as const)('a step that fails by %s goes to the error handlers, skipping the rest', async (how, message) => {
  const { app, seen } = appWith(how);
  await request(app).get('/').expect(500, message);
  expect(seen).toEqual(['one', 'two', `error: ${message}`]);
});

it('takes next(\'route\') and a falsy value as no error, as Express\'s router does, and next(\'router\') leaves the app\'s router', async () => {
  const seen: string[] = [];
  const app = express();
  app.use(inSequence([
    (_req, _res, next) => { seen.push('one'); next('route'); },
    (_req, _res, next) => { seen.push('two'); next(false as never); },
    (req, _res, next) => { seen.push('three'); next(req.query.leave === '1' ? 'router' : undefined); },
    // A promise-like answer, rejected with nothing: an error all the same.
    (req, _res, next) => {
      seen.push('four');
      if (req.query.reject === '1') return { then: (_ok: unknown, fail: (e: unknown) => void) => fail(undefined) } as never;
      next();
    },
  ]));
  app.get('/', (_req, res) => { seen.push('route'); res.send('ok'); });
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => { seen.push(`error: ${err.message}`); res.status(500).send(err.message); });
  await request(app).get('/').expect(200, 'ok');
  expect(seen.splice(0)).toEqual(['one', 'two', 'three', 'four', 'route']);
  await request(app).get('/?leave=1').expect(404);
  expect(seen.splice(0)).toEqual(['one', 'two', 'three']);
  await request(app).get('/?reject=1').expect(500, 'Rejected promise');
  expect(seen.splice(0)).toEqual(['one', 'two', 'three', 'four', 'error: Rejected promise']);
});
