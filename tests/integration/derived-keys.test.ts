/**
 * The composition roots hand the domain the HMAC key derived from SVC_SECRET_KEY (settings.keys.hmac),
 * never the secret key itself: the CSRF token of a session (src/main/app.ts) and the token of an
 * emailed reset link (src/main/runtime.ts, the worker's mail job) are HMACs under the derived key.
 */
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { SMTPServer } from 'smtp-server';
import { startHerald, type Herald } from '../support/harness.js';
import { ADMIN, setupAdmin } from '../support/identity.js';

const KEY = Buffer.alloc(32, 21).toString('base64');
const OLD_KEY = Buffer.alloc(32, 22).toString('base64');
const mails: string[] = [];
let smtp: SMTPServer;
let h: Herald;

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('base64url');

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS'], logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => { mails.push(Buffer.concat(chunks).toString('utf8')); callback(); });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  h = await startHerald({
    env: {
      SVC_ROLES: 'api,worker', SVC_SMTP_URL: `smtp://127.0.0.1:${port}`, SVC_MAIL_FROM: 'Herald <herald@example.test>',
      SVC_SECRET_KEY: KEY, SVC_SECRET_KEY_PREVIOUS: OLD_KEY,
    },
  });
}, 30_000);

afterAll(async () => {
  await h?.stop();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

it('signs CSRF tokens with the derived HMAC key', async () => {
  const admin = await setupAdmin(h);
  expect(h.settings.keys.hmac.equals(h.settings.secretKey)).toBe(false);
  expect(admin.csrf).toBe(hmac(h.settings.keys.hmac, `csrf:${admin.cookie}`));
  expect(admin.csrf).not.toBe(hmac(h.settings.secretKey, `csrf:${admin.cookie}`));
  expect((await admin.patch('/api/v1/me').send({ name: 'Ada Derived', version: 1 })).status).toBe(200);
});

it('derives the reset link token from the derived HMAC key in the worker', async () => {
  expect((await h.http.post('/api/v1/auth/password-reset').send({ email: ADMIN.email })).status).toBe(202);
  let mail: string | undefined;
  for (let i = 0; i < 200 && mail === undefined; i += 1) {
    mail = mails[0];
    if (mail === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(mail).toBeDefined();
  const token = /#token=([A-Za-z0-9_-]+)/.exec(mail!.replace(/=\r\n/g, '').replace(/=3D/g, '='))![1]!;
  const redis = new Redis(h.iso.redisUrl, { maxRetriesPerRequest: 3 });
  const queue = new Queue('mail', { connection: redis, prefix: h.iso.queuePrefix });
  try {
    const [job] = await queue.getJobs(['completed']);
    const requestId = (job!.data as { requestId: string }).requestId;
    expect(token).toBe(hmac(h.settings.keys.hmac, `reset:${requestId}`));
    expect(token).not.toBe(hmac(h.settings.secretKey, `reset:${requestId}`));
  } finally {
    await queue.close();
    redis.disconnect();
  }
}, 20_000);

it('logs none of the keys', () => {
  const text = h.logs.join('');
  expect(text.length).toBeGreaterThan(0);
  for (const key of [KEY, OLD_KEY, h.settings.keys.hmac.toString('base64'), h.settings.keys.hmac.toString('base64url')]) {
    expect(text).not.toContain(key);
  }
});

it('keeps a session signed in under a key now in SVC_SECRET_KEY_PREVIOUS working through a rotation', async () => {
  // Signed in while OLD_KEY was the key: its CSRF token is an HMAC under OLD_KEY's derived key.
  const before = await startHerald({ iso: h.iso, env: { SVC_SECRET_KEY: OLD_KEY } });
  const signedIn = await before.http.post('/api/v1/auth/login').send({ email: ADMIN.email, password: ADMIN.password });
  expect(signedIn.status).toBe(200);
  await before.stop();
  const cookies = (signedIn.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]!);
  const session = cookies.find((c) => c.startsWith('svc_session='))!;
  const csrf = signedIn.body.csrf_token as string;
  expect(csrf).not.toBe(hmac(h.settings.keys.hmac, `csrf:${session.split('=')[1]}`));
  // After the rotation (KEY current, OLD_KEY previous) the old CSRF token is still accepted.
  const me = await h.http.get('/api/v1/me').set('Cookie', session);
  const changed = await h.http.patch('/api/v1/me').set('Cookie', session).set('X-CSRF-Token', csrf)
    .send({ name: 'Ada Rotated', version: me.body.version });
  expect(changed.status).toBe(200);
  // A token under neither key is refused as before.
  const forged = await h.http.patch('/api/v1/me').set('Cookie', session).set('X-CSRF-Token', hmac(Buffer.alloc(32, 9), 'x'))
    .send({ name: 'Ada Forged', version: changed.body.version });
  expect(forged.status).toBe(403);
});
