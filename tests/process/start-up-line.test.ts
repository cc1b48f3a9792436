/**
 * The start-up line of `herald api`: printed once the port is bound, it says where to go, and
 * names the setup step only while setup is open.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isolate, type Isolated } from '../support/isolation.js';
import { freePorts, herald, killChildren, waitUntilLive } from '../support/child-process.js';

let iso: Isolated;
beforeAll(async () => { iso = await isolate(); });
afterAll(async () => {
  await killChildren();
  await iso.release();
});

const linesOf = (text: string) => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

async function startAndRead(env: Record<string, string> = {}): Promise<Array<Record<string, unknown>>> {
  const [port] = await freePorts(1);
  const h = herald(['api'], { ...iso.env, SVC_LISTEN: `127.0.0.1:${port}`, SVC_LOG_LEVEL: 'info', ...env });
  await waitUntilLive(h, port!);
  // The line follows the bind; give the process the moment it needs to log it.
  for (let i = 0; i < 300 && !linesOf(h.stdout()).some((l) => String(l.message).startsWith('Herald is ready')); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  h.child.kill('SIGTERM');
  await h.exited;
  return linesOf(h.stdout());
}

it('names the setup step while no user exists, after the port is bound, and drops it once setup is done', async () => {
  const before = await startAndRead();
  const listening = before.findIndex((l) => l.message === 'api listening');
  const ready = before.findIndex((l) => String(l.message).startsWith('Herald is ready'));
  expect(listening).toBeGreaterThanOrEqual(0);
  expect(ready).toBeGreaterThan(listening);
  expect(before[ready]).toMatchObject({ setup_open: true });
  expect(String(before[ready]!.message)).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/setup/);

  const [port] = await freePorts(1);
  const h = herald(['api'], { ...iso.env, SVC_LISTEN: `127.0.0.1:${port}` });
  await waitUntilLive(h, port!);
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/setup`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Ada', email: 'ada@example.com', password: 'correct horse battery staple' }),
  });
  expect(res.status).toBe(201);
  h.child.kill('SIGTERM');
  await h.exited;

  const after = await startAndRead();
  const line = after.find((l) => String(l.message).startsWith('Herald is ready'));
  expect(line).toMatchObject({ setup_open: false });
  expect(String(line!.message)).not.toMatch(/setup/);
  expect(String(line!.message)).toMatch(/\/docs/);
}, 60_000);

it('points to the web UI when this process serves it: its setup wizard while setup is open', async () => {
  const web = mkdtempSync(path.join(tmpdir(), 'herald-ready-web-'));
  writeFileSync(path.join(web, 'index.html'), '<!doctype html><div id="root"></div>');
  try {
    const fresh = await isolate();
    try {
      const [port] = await freePorts(1);
      const h = herald(['api'], { ...fresh.env, SVC_LISTEN: `127.0.0.1:${port}`, SVC_LOG_LEVEL: 'info', SVC_WEB_DIR: web });
      await waitUntilLive(h, port!);
      for (let i = 0; i < 300 && !linesOf(h.stdout()).some((l) => String(l.message).startsWith('Herald is ready')); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      h.child.kill('SIGTERM');
      await h.exited;
      const line = linesOf(h.stdout()).find((l) => String(l.message).startsWith('Herald is ready'));
      expect(line).toMatchObject({ setup_open: true, web_ui: true });
      expect(String(line!.message)).toMatch(new RegExp(`open http://127\\.0\\.0\\.1:${port}/ in a browser to create the first admin`));
    } finally {
      await fresh.release();
    }
  } finally {
    rmSync(web, { recursive: true, force: true });
  }
}, 60_000);
