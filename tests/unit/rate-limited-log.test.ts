import { rateLimitedLog } from '../../src/infra/log/rate-limited-log.js';
import type { Logger } from '../../src/infra/log/logger.js';

it('writes a recurring problem once per interval and per key, then says how many it left out', () => {
  const lines: Array<[string, string, Record<string, unknown>]> = [];
  const logger = { log: (level: string, message: string, meta: Record<string, unknown>) => { lines.push([level, message, meta]); } } as unknown as Logger;
  let t = 0;
  const log = rateLimitedLog(logger, 'warn', 1000, () => t);
  for (let i = 0; i < 50; i++) { log('redis', 'redis connection problem', { n: i }); t += 10; }
  log('queue:runs', 'queue connection problem');
  t = 1000;
  log('redis', 'redis connection problem', { n: 99 });
  expect(lines).toEqual([
    ['warn', 'redis connection problem', { n: 0 }],
    ['warn', 'queue connection problem', {}],
    ['warn', 'redis connection problem', { n: 99, suppressed: 49 }],
  ]);
});
