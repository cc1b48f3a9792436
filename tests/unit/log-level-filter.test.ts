/**
 * A log line below the level is dropped before it is redacted or formatted (winston formats
 * first and lets the transports compare levels): its metadata is never even read.
 */
import { Writable } from 'node:stream';
import { createLogger } from '../../src/infra/log/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _e, cb) { lines.push(chunk.toString('utf8')); cb(); } });
  return { lines, stream };
}

describe('log level filter', () => {
  it('never reads the metadata of a line below the level, and still writes and redacts the others', async () => {
    const { lines, stream } = capture();
    const logger = createLogger({ format: 'json', level: 'info', stream });
    let reads = 0;
    const probe = { get detail() { reads += 1; return 'x'; } };
    logger.debug('below the level', { probe });
    logger.child({ request_id: 'r1' }).debug('below the level too', { probe });
    expect(reads).toBe(0);
    logger.info('at the level', { probe, password: 'hunter2' });
    await new Promise((r) => setImmediate(r));
    expect(reads).toBeGreaterThan(0);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ message: 'at the level', password: '[redacted]', probe: { detail: 'x' } });
  });

  it('follows a level changed later', async () => {
    const { lines, stream } = capture();
    const logger = createLogger({ format: 'json', level: 'info', stream });
    logger.debug('hidden');
    logger.level = 'debug';
    logger.debug('shown');
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['shown']);
  });

  it('writes a line to its transport within the call that logs it (a child too), formatted and redacted', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ format: 'json', level: 'info', stream, base: { service: 'herald' } });
    logger.info('first', { token: 'abc', n: 1 });
    logger.child({ run_id: 'r1' }).warn('second', { password: 'hunter2' });
    logger.debug('below');
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'info', message: 'first', n: 1, service: 'herald', timestamp: expect.any(String) }),
      expect.objectContaining({ level: 'warn', message: 'second', run_id: 'r1', password: '[redacted]', service: 'herald' }),
    ]);
    logger.silent = true;
    logger.error('silenced');
    expect(lines).toHaveLength(2);
  });
});
