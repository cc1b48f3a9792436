/**
 * The emailed password reset, end to end through a real SMTP server on loopback: the request
 * answers the same for known and unknown addresses, only a known one gets a message, the
 * message's link opens the reset page and carries a single-use, expiring token that sets a new
 * password and ends every session. Without SVC_SMTP_URL the request is refused with 503.
 */
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import request from 'supertest';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { runInNewContext } from 'node:vm';
import { startHerald, type Herald } from '../support/harness.js';
import { deviceCookieName } from '../../src/domain/identity/tokens.js';
import { deviceCookieOf, retryAfterOf, spreadAttack } from '../support/throttle.js';
import { setupAdmin, signIn, type SessionClient } from '../support/identity.js';

const MAIL_FROM = 'Herald <herald@example.test>';
const PUBLIC_URL = 'http://herald.example.test:8443';
const RITA = { name: 'Rita Reset', email: 'rita@example.com', password: 'Rita temporary passphrase 5' };
const NEW_PASSWORD = 'Rita chose a brand new passphrase 8';

interface Received {
  mailFrom: string | undefined;
  rcptTo: string[];
  headers: Record<string, string>;
  text: string;
}

const received: Received[] = [];
/** When set, the SMTP server refuses the next message with a temporary error (451). */
let refuseNext = false;
let refused = 0;
let smtp: SMTPServer;
let h: Herald;
let sql: postgres.Sql;
let admin: SessionClient;
let ritaId: string;
let ritaSessions: SessionClient[];
let firstToken: string;
/** The device cookie the confirmed reset gave the browser. */
let resetDevice: string;

/** Just enough MIME for a nodemailer text message: unfolded headers and a decoded body. */
function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(split + 4);
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  if (encoding === 'quoted-printable') {
    body = Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1')
      .toString('utf8');
  } else if (encoding === 'base64') {
    body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  return { headers, text: body.replace(/\r\n/g, '\n') };
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const messagesTo = (email: string) => received.filter((m) => m.rcptTo.includes(email));

function tokenOf(message: Received): string {
  const link = new RegExp(`${PUBLIC_URL.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/reset-password)#token=([A-Za-z0-9_-]+)`).exec(message.text);
  if (!link) throw new Error(`no reset link in the message:\n${message.text}`);
  return link[2]!;
}

function requestReset(email: string, ip: string) {
  return h.http.post('/api/v1/auth/password-reset').set('X-Forwarded-For', ip).send({ email });
}

function confirm(token: string, password: string, ip: string) {
  return h.http.post('/api/v1/auth/password-reset/confirm').set('X-Forwarded-For', ip).send({ token, password });
}

function login(email: string, password: string, ip: string) {
  return h.http.post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ email, password });
}

/**
 * Follows a reset link as a browser would: loads the page at the link's path, then runs the
 * page's own script with the token in the fragment, a form holding `password`, and a fetch that
 * reaches this server. Answers what the page shows and the server's answer to its request.
 */
async function submitResetPage(link: string, password: string, ip: string) {
  const url = new URL(link);
  const page = await request(h.process.app!).get(url.pathname);
  expect(page.status).toBe(200);
  const src = /<script src="([^"]+)"><\/script>/.exec(page.text)![1]!;
  const script = await request(h.process.app!).get(src);
  expect(script.status).toBe(200);
  interface FakeElement {
    value: string;
    textContent: string;
    listeners: Record<string, (e: unknown) => Promise<void>>;
    addEventListener(type: string, fn: (e: unknown) => Promise<void>): void;
  }
  const elements: Record<string, FakeElement> = {};
  const element = (id: string): FakeElement => (elements[id] ??= {
    value: '', textContent: '', listeners: {},
    addEventListener(type, fn) { this.listeners[type] = fn; },
  });
  element('password').value = password;
  let answer: request.Response | undefined;
  const fetch = async (path: string, init: { method: string; headers: Record<string, string>; body: string }) => {
    let req = request(h.process.app!).post(path).set('X-Forwarded-For', ip);
    for (const [k, v] of Object.entries(init.headers)) req = req.set(k, v);
    answer = await req.send(init.body);
    const res = answer;
    return { status: res.status, json: async () => JSON.parse(res.text) as unknown };
  };
  runInNewContext(script.text, { document: { getElementById: element }, location: { hash: url.hash }, fetch, URLSearchParams, JSON });
  await element('reset').listeners.submit!({ preventDefault: () => undefined });
  return { status: answer!.status, text: element('result').textContent, res: answer! };
}

describe('with outgoing mail configured', () => {
  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (refuseNext) {
            refuseNext = false;
            refused += 1;
            callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
            return;
          }
          const { headers, text } = parseMessage(Buffer.concat(chunks).toString('utf8'));
          const from = session.envelope.mailFrom;
          received.push({
            mailFrom: from ? from.address : undefined,
            rcptTo: session.envelope.rcptTo.map((a: SMTPServerAddress) => a.address),
            headers,
            text,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => { smtp.listen(0, '127.0.0.1', () => resolve()); });
    const port = (smtp.server.address() as AddressInfo).port;

    h = await startHerald({
      // A worker runs beside the API: reset mails are jobs (mail.password_reset).
      env: { SVC_SMTP_URL: `smtp://127.0.0.1:${port}`, SVC_MAIL_FROM: MAIL_FROM, SVC_PUBLIC_URL: PUBLIC_URL, SVC_ROLES: 'api,worker' },
    });
    sql = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
    admin = await setupAdmin(h);
    const created = await admin.post('/api/v1/users')
      .send({ name: RITA.name, email: RITA.email, role: 'editor', temporary_password: RITA.password });
    if (created.status !== 201) throw new Error(`create user answered ${created.status}: ${created.text}`);
    ritaId = created.body.user.id;
    ritaSessions = [await signIn(h, RITA.email, RITA.password, '192.0.2.10'), await signIn(h, RITA.email, RITA.password, '192.0.2.11')];
  });

  afterAll(async () => {
    await sql?.end();
    await h?.stop();
    await new Promise<void>((resolve) => { smtp.close(() => resolve()); });
  });

  it('answers 202 the same way for a known and an unknown address; only the known one gets mail', async () => {
    const unknown = await requestReset('nobody@example.com', '192.0.2.20');
    const known = await requestReset(RITA.email, '192.0.2.21');
    for (const res of [unknown, known]) {
      expect(res.status).toBe(202);
      expect(res.text).toBe('');
    }
    const comparable = (headers: Record<string, string>) => {
      const { 'x-request-id': _id, date: _date, etag: _etag, ...rest } = headers;
      return rest;
    };
    expect(comparable(known.headers)).toEqual(comparable(unknown.headers));

    const message = await waitFor('the reset message', () => messagesTo(RITA.email)[0]);
    // Both requests have been handled in the background once both are in the audit trail.
    await waitFor('both reset requests in the audit trail', async () => {
      const res = await admin.get('/api/v1/security-events?type=auth.password_reset_requested');
      return res.body.items.length >= 2 ? true : undefined;
    });
    expect(received).toEqual([message]);
    expect(received.some((m) => m.rcptTo.includes('nobody@example.com'))).toBe(false);
  });

  it('sends the message to the user, from SVC_MAIL_FROM, with a link to the reset page', async () => {
    const message = messagesTo(RITA.email)[0]!;
    expect(message.rcptTo).toEqual([RITA.email]);
    expect(message.headers.to).toContain(RITA.email);
    expect(message.mailFrom).toBe('herald@example.test');
    expect(message.headers.from).toBe(MAIL_FROM);
    firstToken = tokenOf(message);
    expect(firstToken.length).toBeGreaterThanOrEqual(32);

    // The link's path is a page this server serves (the token stays in the fragment).
    const page = await request(h.process.app!).get('/reset-password');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<form');
    expect(page.text).not.toContain(firstToken);

    // The link is valid for one hour.
    const [row] = await sql<{ seconds: number }[]>`
      select extract(epoch from expires_at - created_at)::int as seconds from password_resets where user_id = ${ritaId} and used_at is null`;
    expect(row!.seconds).toBeGreaterThanOrEqual(3595);
    expect(row!.seconds).toBeLessThanOrEqual(3605);
  });

  it('refuses a weak new password with validation.failed on password and keeps the token usable', async () => {
    const res = await confirm(firstToken, 'qwertyuiop', '192.0.2.30');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'password' })]));
    const short = await confirm(firstToken, 'short', '192.0.2.30');
    expect(short.status).toBe(422);
    expect(short.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'password' })]));
  });

  it('sets the new password when the link is followed and the page\'s form sent, and ends every earlier session', async () => {
    for (const s of ritaSessions) expect((await s.get('/api/v1/me')).status).toBe(200);
    const link = messagesTo(RITA.email)[0]!.text.match(/https?:\/\/\S+/)![0];
    const { status, text, res } = await submitResetPage(link, NEW_PASSWORD, '192.0.2.31');
    expect(status).toBe(204);
    expect(text).toBe('Your password is changed. Sign in with it.');
    expect(res.text).toBe('');
    // Proving control of the mailbox makes this browser familiar to the sign-in throttle.
    expect(deviceCookieOf(res).split('=')[0]).toBe(deviceCookieName(RITA.email));
    resetDevice = deviceCookieOf(res);

    for (const s of ritaSessions) {
      const after = await s.get('/api/v1/me');
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('auth.unauthenticated');
    }
    const fresh = await login(RITA.email, NEW_PASSWORD, '192.0.2.32');
    expect(fresh.status).toBe(200);
    expect(fresh.body.user).toMatchObject({ id: ritaId, must_change_password: false });
    const old = await login(RITA.email, RITA.password, '192.0.2.33');
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('auth.invalid_credentials');
  });

  it('accepts a token only once', async () => {
    const again = await confirm(firstToken, 'Yet another passphrase 11', '192.0.2.34');
    expect(again.status).toBe(422);
    expect(again.body.code).toBe('auth.reset_token_invalid');
    expect((await login(RITA.email, NEW_PASSWORD, '192.0.2.35')).status).toBe(200);
  });

  it('refuses an expired token', async () => {
    const before = messagesTo(RITA.email).length;
    expect((await requestReset(RITA.email, '192.0.2.40')).status).toBe(202);
    const message = await waitFor('the second reset message', () => messagesTo(RITA.email)[before]);
    const token = tokenOf(message);
    expect(token).not.toBe(firstToken);
    const moved = await sql`update password_resets set expires_at = now() - interval '1 minute' where user_id = ${ritaId} and used_at is null`;
    expect(moved.count).toBe(1);
    const res = await confirm(token, 'Expired link passphrase 12', '192.0.2.41');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('auth.reset_token_invalid');
    expect((await login(RITA.email, NEW_PASSWORD, '192.0.2.42')).status).toBe(200);
  });

  it('retries a send the mail server refused, so the message still arrives', async () => {
    const before = messagesTo(RITA.email).length;
    const countRows = async () => {
      const [row] = await sql<{ tokens: number; events: number }[]>`
        select (select count(*)::int from password_resets where user_id = ${ritaId}) as tokens,
               (select count(*)::int from security_events where type = 'auth.password_reset_requested' and subject_user_id = ${ritaId}) as events`;
      return row!;
    };
    const rowsBefore = await countRows();
    refuseNext = true;
    expect((await requestReset(RITA.email, '192.0.2.77')).status).toBe(202);
    await waitFor('the refused first attempt', () => (refused > 0 ? true : undefined));
    // The job's first retry comes after its backoff (5 s); the message then arrives.
    await waitFor('the retried message', () => (messagesTo(RITA.email).length > before ? true : undefined), 20_000);
    expect(refused).toBe(1);
    // The retry resent the same link: one token and one audit record for the one request.
    expect(await countRows()).toEqual({ tokens: rowsBefore.tokens + 1, events: rowsBefore.events + 1 });
  }, 30_000);

  it('refuses a token it never issued', async () => {
    const res = await confirm('A'.repeat(43), 'Made up token passphrase 13', '192.0.2.50');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('auth.reset_token_invalid');
  });

  it('records the completed reset in the audit trail, with the sessions it ended', async () => {
    const res = await admin.get(`/api/v1/security-events?type=auth.password_reset_completed&user_id=${ritaId}`);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({
      type: 'auth.password_reset_completed', outcome: 'success', user_id: ritaId, ip: '192.0.2.31',
      actor: { type: 'anonymous' }, target: { type: 'user', id: ritaId }, details: { sessions_ended: 2 },
    });
  });

  it('lets the browser that reset the password sign in while guesses from elsewhere hold the account back', async () => {
    const attack = spreadAttack(() => h.http);
    await attack.armAccountDelay(RITA.email, 4);
    expect(retryAfterOf(await login(RITA.email, NEW_PASSWORD, '192.0.2.90'))).toBeLessThanOrEqual(60);
    const resetBrowser = await h.http.post('/api/v1/auth/login').set('X-Forwarded-For', '192.0.2.91')
      .set('Cookie', resetDevice).send({ email: RITA.email, password: NEW_PASSWORD });
    expect(resetBrowser.status).toBe(200);
  }, 60_000);

  it('expires pending links when the password is changed another way', async () => {
    const before = messagesTo(RITA.email).length;
    expect((await requestReset(RITA.email, '192.0.2.92')).status).toBe(202);
    const pending = tokenOf(await waitFor('a pending link', () => messagesTo(RITA.email)[before]));
    const rita = await signIn(h, RITA.email, NEW_PASSWORD, '192.0.2.91');
    const changed = await rita.post('/api/v1/me/password').send({ current_password: NEW_PASSWORD, new_password: 'Rita changed it herself 14' });
    expect(changed.status).toBe(204);
    const res = await confirm(pending, 'Attacker wants this one 15', '192.0.2.93');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('auth.reset_token_invalid');

    // An admin's reset of the password expires them too.
    const next = messagesTo(RITA.email).length;
    expect((await requestReset(RITA.email, '192.0.2.94')).status).toBe(202);
    const another = tokenOf(await waitFor('another pending link', () => messagesTo(RITA.email)[next]));
    expect((await admin.post(`/api/v1/users/${ritaId}/reset-password`).send({})).status).toBe(200);
    expect((await confirm(another, 'Attacker wants this one 16', '192.0.2.95')).body.code).toBe('auth.reset_token_invalid');
  });

  it('mails an account at most five links an hour, still answering 202 to every request', async () => {
    const quinn = 'quinn@example.com';
    const created = await admin.post('/api/v1/users').send({ name: 'Quinn Quota', email: quinn, role: 'viewer' });
    expect(created.status).toBe(201);
    // From ever new addresses, so no address budget is what holds them back.
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push((await requestReset(quinn, `192.0.2.${160 + i}`)).status);
    expect(answers).toEqual([202, 202, 202, 202, 202, 202, 202]);
    await waitFor('five messages', () => (messagesTo(quinn).length === 5 ? true : undefined));
    const refused = await admin.get(`/api/v1/security-events?type=auth.password_reset_requested&limit=200`);
    const rateLimited = (refused.body.items as Array<{ outcome: string; reason: string | null; ip: string }>)
      .filter((e) => e.reason === 'rate_limited');
    expect(rateLimited.map((e) => e.ip).sort()).toEqual(['192.0.2.165', '192.0.2.166']);
    for (const e of rateLimited) expect(e.outcome).toBe('failure');
    // The requests past the quota were never queued: no sixth message comes.
    await waitFor('the five mailed requests in the audit trail', async () => {
      const res = await admin.get(`/api/v1/security-events?type=auth.password_reset_requested&limit=200`);
      const mailed = (res.body.items as Array<{ outcome: string; user_id: string | null }>)
        .filter((e) => e.outcome === 'success' && e.user_id === created.body.user.id);
      return mailed.length === 5 ? true : undefined;
    });
    expect(messagesTo(quinn)).toHaveLength(5);
  });
});

describe('without outgoing mail', () => {
  let bare: Herald;
  beforeAll(async () => { bare = await startHerald(); });
  afterAll(async () => { await bare?.stop(); });

  it('answers 503 mail.not_configured', async () => {
    const res = await bare.http.post('/api/v1/auth/password-reset').set('X-Forwarded-For', '192.0.2.60').send({ email: 'anyone@example.com' });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('mail.not_configured');
  });
});
