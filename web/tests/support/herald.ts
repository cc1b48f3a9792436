/**
 * A real Herald for the browser tests: `herald migrate` then `herald serve` (api, scheduler and
 * worker) as a child process, on its own database, queue prefix and data folder, serving the built
 * UI (web/dist) at http://localhost:<port> (localhost, so passkeys work), with a loopback SMTP
 * server and a webhook receiver it may reach. `seed` is an admin API client (the SDK, with an API
 * key) for arranging what a test needs without clicking.
 */
import { fileURLToPath } from 'node:url';
import { createClient, type HeraldClient } from '../../../sdk/src/index.js';
import { isolate, type Isolated } from '../../../tests/support/isolation.js';
import { freePorts, herald, run, waitUntilLive, type Herald } from '../../../tests/support/child-process.js';
import { httpPeer, smtpPeer, type HttpPeer, type SmtpPeer } from '../../../tests/support/peers.js';

const WEB_DIR = fileURLToPath(new URL('../../dist', import.meta.url));

export const ADMIN = { name: 'Ada Admin', email: 'ada@example.com', password: 'correct horse battery' };

export interface RunningHerald {
  url: string;
  port: number;
  smtp: SmtpPeer;
  webhook: HttpPeer;
  /** An admin client with an API key; undefined on a fresh instance (no user yet). */
  seed: HeraldClient;
  /** Creates a user of `role` whose password needs no change, and answers its credentials. */
  user(role: 'viewer' | 'editor' | 'admin', name?: string): Promise<{ id: string; email: string; password: string; name: string }>;
  /** The child's output, for a failing test's message. */
  logs(): string;
  stop(): Promise<void>;
}

let counter = 0;

export async function startHerald(options: { fresh?: boolean; env?: Record<string, string> } = {}): Promise<RunningHerald> {
  // A clone of the run's migrated template (web/playwright.config.ts's global setup), else migrated here.
  const templated = Boolean(process.env.HERALD_TEST_TEMPLATE_DB);
  const iso: Isolated = await isolate({ template: templated });
  const [port] = await freePorts(1);
  const smtp = await smtpPeer();
  const webhook = await httpPeer();
  const url = `http://localhost:${port}`;
  const env: Record<string, string> = {
    ...iso.env,
    SVC_ROLES: 'api,scheduler,worker',
    SVC_LISTEN: `127.0.0.1:${port}`,
    SVC_PUBLIC_URL: url,
    SVC_WEB_DIR: WEB_DIR,
    SVC_LOG_LEVEL: 'warn',
    SVC_BCRYPT_COST: '12',
    SVC_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    SVC_MAIL_FROM: 'herald@example.com',
    SVC_OUTBOUND_ALLOW: '127.0.0.1/32,localhost',
    SVC_SCHEDULER_TICK_SECONDS: '1',
    ...options.env,
  };
  if (!templated) {
    const migrated = await run(['migrate'], env);
    if (migrated.code !== 0) throw new Error(`herald migrate failed\n${migrated.stdout}\n${migrated.stderr}`);
  }
  const child: Herald = herald(['serve'], env);
  // Generous: a loaded two-core machine takes long to start a TypeScript process under tsx.
  await waitUntilLive(child, port!, 120);

  const base = { url, port: port!, smtp, webhook, logs: () => `${child.stdout()}\n${child.stderr()}` };
  const stop = async () => {
    child.child.kill('SIGTERM');
    await Promise.race([child.exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.child.exitCode === null) child.child.kill('SIGKILL');
    await Promise.all([smtp.close(), webhook.close()]);
    await iso.release();
  };
  if (options.fresh) return { ...base, seed: undefined as unknown as HeraldClient, user: () => Promise.reject(new Error('fresh instance')), stop };

  // The first admin, signed in with a cookie, makes an admin API key for the seed client.
  const setup = await fetch(`${url}/api/v1/setup`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) });
  if (setup.status !== 201 && setup.status !== 200) throw new Error(`setup failed: ${setup.status} ${await setup.text()}`);
  const cookies = setup.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = /svc_csrf=([^;]+)/.exec(cookies)?.[1] ?? '';
  const keyRes = await fetch(`${url}/api/v1/api-keys`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: cookies, 'X-CSRF-Token': decodeURIComponent(csrf) },
    body: JSON.stringify({ name: 'browser tests', scope: 'admin' }),
  });
  if (keyRes.status !== 201) throw new Error(`api key failed: ${keyRes.status} ${await keyRes.text()}`);
  const { token } = await keyRes.json() as { token: string };
  const seed = createClient({ baseUrl: url, apiKey: token });

  const user: RunningHerald['user'] = async (role, name) => {
    counter += 1;
    const email = `${role}${counter}-${Date.now()}@example.com`;
    const password = 'a long test password';
    const temporary = 'temporary password 1';
    const created = await seed.call('createUser', { body: { name: name ?? `${role} ${counter}`, email, role, temporary_password: temporary } });
    // The first sign-in asks for a new password: done here, so the browser signs in plainly.
    const login = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password: temporary }) });
    const c = login.headers.getSetCookie().map((x) => x.split(';')[0]).join('; ');
    const token2 = decodeURIComponent(/svc_csrf=([^;]+)/.exec(c)?.[1] ?? '');
    const changed = await fetch(`${url}/api/v1/me/password`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: c, 'X-CSRF-Token': token2 },
      body: JSON.stringify({ current_password: temporary, new_password: password }),
    });
    if (!changed.ok) throw new Error(`password change failed: ${changed.status} ${await changed.text()}`);
    return { id: created.user.id, email, password, name: created.user.name };
  };
  return { ...base, seed, user, stop };
}
