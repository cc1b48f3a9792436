/**
 * Standard output's lines are written a short span at a time (one write for many lines), in
 * order, and none is lost when the process exits: by process.exit, by the end of its work, or by
 * an uncaught error.
 */
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { BufferedOutput, flushLogs } from '../../src/infra/log/buffered-output.js';
import { createLogger } from '../../src/infra/log/logger.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function counting() {
  const writes: string[] = [];
  const out = new Writable({ write(chunk: Buffer, _e, cb) { writes.push(chunk.toString('utf8')); cb(); } });
  return { writes, out };
}

const MESSAGE = Symbol.for('message');
const record = (text: string) => ({ level: 'info', message: text, [MESSAGE]: text });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('buffered output', () => {
  it('writes the lines of a span in one write, in order, once the span is over', async () => {
    const { writes, out } = counting();
    const t = new BufferedOutput({ out, flushMs: 20 });
    for (let i = 0; i < 50; i++) t.log(record(`line ${i}`), () => undefined);
    expect(writes).toEqual([]);
    await sleep(60);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n').slice(0, -1)).toEqual(Array.from({ length: 50 }, (_, i) => `line ${i}`));
    t.log(record('later'), () => undefined);
    await sleep(60);
    expect(writes).toEqual([writes[0], 'later\n']);
    t.close();
  });

  it('writes at once when the waiting lines reach the size', () => {
    const { writes, out } = counting();
    const t = new BufferedOutput({ out, flushMs: 60_000, maxBytes: 100 });
    for (let i = 0; i < 9; i++) t.log(record('x'.repeat(9)), () => undefined);
    expect(writes).toEqual([]);
    t.log(record('x'.repeat(9)), () => undefined);
    expect(writes).toEqual([`${'x'.repeat(9)}\n`.repeat(10)]);
    t.close();
  });

  it('flushLogs writes what waits, so a command\'s own output comes after its log lines', () => {
    const { writes, out } = counting();
    const t = new BufferedOutput({ out, flushMs: 60_000 });
    t.log(record('logged first'), () => undefined);
    flushLogs();
    out.write('the command\'s output\n');
    expect(writes.join('')).toBe('logged first\nthe command\'s output\n');
    t.close();
  });

  it('is where the process logger writes by default, and a closed output writes what waited', async () => {
    const { writes, out } = counting();
    const logger = createLogger({ format: 'json', level: 'info' });
    expect(logger.transports[0]).toBeInstanceOf(BufferedOutput);
    const t = new BufferedOutput({ out, flushMs: 60_000 });
    t.log(record('kept'), () => undefined);
    t.close();
    expect(writes).toEqual(['kept\n']);
    logger.close();
  });

  const child = (ending: string) => spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
    import { createLogger } from './src/infra/log/logger.ts';
    const logger = createLogger({ format: 'json', level: 'info' });
    for (let i = 0; i < 300; i++) logger.info('line', { i });
    ${ending}
  `], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });

  const numbers = (stdout: string) => stdout.trim().split('\n').map((l) => (JSON.parse(l) as { i: number }).i);
  const all = Array.from({ length: 300 }, (_, i) => i);

  it('loses no line when the process exits at once after logging', () => {
    const r = child('process.exit(3);');
    expect(r.status).toBe(3);
    expect(numbers(r.stdout)).toEqual(all);
  });

  it('loses no line when the process ends on its own, or on an uncaught error', () => {
    const ended = child('');
    expect(ended.status).toBe(0);
    expect(numbers(ended.stdout)).toEqual(all);
    const thrown = child('throw new Error("boom");');
    expect(thrown.status).toBe(1);
    expect(thrown.stderr).toContain('boom');
    expect(numbers(thrown.stdout)).toEqual(all);
  });
});
