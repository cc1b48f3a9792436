/**
 * The README's "First run with curl" block, run as written by bash and curl against a real
 * `herald serve` (only the address changed): the examples a newcomer copies must keep working.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { isolate, type Isolated } from '../support/isolation.js';
import { freePorts, herald, killChildren, waitUntilLive } from '../support/child-process.js';

const execFileAsync = promisify(execFile);
let iso: Isolated;
let port: number;

beforeAll(async () => {
  iso = await isolate();
  [port] = (await freePorts(1)) as [number];
  const server = herald(['serve'], { ...iso.env, SVC_ROLES: 'api,scheduler,worker', SVC_LISTEN: `127.0.0.1:${port}` });
  await waitUntilLive(server, port);
}, 60_000);
afterAll(async () => {
  await killChildren();
  await iso?.release();
}, 20_000);

/** The first ```sh block after the heading. */
function readmeBlock(heading: string): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const at = readme.indexOf(`## ${heading}`);
  expect(at).toBeGreaterThanOrEqual(0);
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  return m![1]!;
}

it('runs the first-run curl examples as written', async () => {
  const block = readmeBlock('First run with curl');
  expect(block).toContain('B=http://127.0.0.1:8080/api/v1');
  const script = `set -euo pipefail\n${block.replace('http://127.0.0.1:8080', `http://127.0.0.1:${port}`)}`;
  const { stdout } = await execFileAsync('bash', ['-c', script], { timeout: 60_000 });
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  const json = (line: string) => JSON.parse(line) as Record<string, unknown>;
  // setup status, setup, token, /me, /users, new user, sign-in, sessions
  expect(lines).toHaveLength(8);
  expect(json(lines[0]!)).toEqual({ needs_setup: true });
  expect(json(lines[1]!)).toMatchObject({ status: 'signed_in', user: { email: 'ada@example.com', role: 'admin' } });
  expect(lines[2]).toMatch(/^hk_[A-Za-z0-9_-]{43}$/);
  expect(json(lines[3]!)).toMatchObject({ email: 'ada@example.com', role: 'admin' });
  expect((json(lines[4]!).items as unknown[]).length).toBe(1);
  expect(json(lines[5]!)).toMatchObject({ user: { name: 'Grace', role: 'editor', must_change_password: true }, temporary_password: expect.any(String) });
  expect(json(lines[6]!)).toMatchObject({ status: 'signed_in' });
  const sessions = json(lines[7]!).items as Array<{ current: boolean }>;
  expect(sessions).toHaveLength(2);
  expect(sessions.filter((s) => s.current)).toHaveLength(1);
}, 60_000);
