/**
 * First-run setup: the status flag, the first admin signed in with both cookies, the refusal of
 * a second setup, and racing setups on a fresh store of which exactly one wins.
 */
import postgres from 'postgres';
import { startHerald, type Herald } from '../support/harness.js';
import { sessionClient } from '../support/identity.js';

const FIRST = { name: 'Grace First', email: 'grace@example.com', password: 'a long and unusual passphrase 7' };

function setCookies(res: { headers: Record<string, unknown> }): string[] {
  const raw = res.headers['set-cookie'];
  return Array.isArray(raw) ? raw as string[] : typeof raw === 'string' ? [raw] : [];
}

function cookieNamed(list: string[], name: string): { value: string; attributes: string[] } {
  const line = list.find((c) => c.startsWith(`${name}=`));
  if (!line) throw new Error(`no ${name} cookie in ${JSON.stringify(list)}`);
  const [pair, ...attributes] = line.split(';').map((p) => p.trim());
  return { value: decodeURIComponent(pair!.slice(name.length + 1)), attributes: attributes.map((a) => a.toLowerCase()) };
}

async function userRows(h: Herald): Promise<Array<{ email: string; role: string }>> {
  const sql = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    return await sql<Array<{ email: string; role: string }>>`select email, role from users order by created_at`;
  } finally {
    await sql.end();
  }
}

describe('first-run setup', () => {
  let h: Herald;
  beforeAll(async () => { h = await startHerald(); });
  afterAll(async () => { await h.stop(); });

  it('reports needs_setup true on an empty store', async () => {
    const res = await h.http.get('/api/v1/setup/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ needs_setup: true });
  });

  it('creates the first admin and signs it in with both cookies', async () => {
    const res = await h.http.post('/api/v1/setup').set('X-Forwarded-For', '198.51.100.10').send(FIRST);
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('signed_in');
    expect(res.body.user).toMatchObject({
      name: FIRST.name, email: FIRST.email, role: 'admin', enabled: true, must_change_password: false, version: 1,
    });
    expect(typeof res.body.csrf_token).toBe('string');
    expect(res.body.csrf_token.length).toBeGreaterThan(20);
    expect(JSON.stringify(res.body)).not.toContain(FIRST.password);

    const cookies = setCookies(res);
    const session = cookieNamed(cookies, 'svc_session');
    const csrf = cookieNamed(cookies, 'svc_csrf');
    expect(session.value.length).toBeGreaterThan(20);
    expect(session.attributes).toContain('httponly');
    expect(session.attributes).toContain('samesite=lax');
    expect(session.attributes).toContain('path=/');
    expect(session.attributes).not.toContain('secure'); // SVC_PUBLIC_URL is http here
    expect(session.attributes.some((a) => /^max-age=[1-9]\d*$/.test(a))).toBe(true);
    expect(csrf.attributes).not.toContain('httponly');
    expect(csrf.attributes).toContain('samesite=lax');
    expect(csrf.value).toBe(res.body.csrf_token);
    expect(csrf.value).not.toBe(session.value);

    // The cookies are a working session of the new admin.
    const admin = sessionClient(h, { cookie: session.value, csrf: csrf.value, userId: res.body.user.id });
    const me = await admin.get('/api/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: res.body.user.id, email: FIRST.email, role: 'admin' });
    const sessions = await admin.get('/api/v1/me/sessions');
    expect(sessions.status).toBe(200);
    expect(sessions.body.items).toHaveLength(1);
    expect(sessions.body.items[0]).toMatchObject({ method: 'setup', current: true, ip: '198.51.100.10' });
  });

  it('reports needs_setup false once the first user exists', async () => {
    const res = await h.http.get('/api/v1/setup/status');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ needs_setup: false });
  });

  it('refuses a second setup with 409 setup.completed and creates nobody', async () => {
    const res = await h.http.post('/api/v1/setup')
      .send({ name: 'Mallory', email: 'mallory@example.com', password: 'another long passphrase 8' });
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'setup.completed', status: 409 });
    expect(setCookies(res).some((c) => c.startsWith('svc_session='))).toBe(false);
    expect(await userRows(h)).toEqual([{ email: FIRST.email, role: 'admin' }]);
  });

  it('answers 409 setup.completed before judging the body: a finished setup costs no password hash', async () => {
    const res = await h.http.post('/api/v1/setup').send({ name: 'Mallory', email: 'mallory@example.com', password: 'qwertyuiop' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('setup.completed');
  });
});

describe('racing setups on a fresh instance', () => {
  let h: Herald;
  // Served behind https: the session cookies must then be Secure.
  beforeAll(async () => { h = await startHerald({ env: { SVC_PUBLIC_URL: 'https://herald.example.com' } }); });
  afterAll(async () => { await h.stop(); });

  it('lets exactly one of five concurrent setups win', async () => {
    // To make the race real rather than left to timing, the users table is held locked until all
    // five setups wait in the store; then they are let go together.
    const sql = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
    let answers: Awaited<ReturnType<typeof h.http.post>>[];
    try {
      answers = await sql.begin(async (tx) => {
        await tx`lock table users in access exclusive mode`;
        const pending = Promise.all([0, 1, 2, 3, 4].map((i) => h.http.post('/api/v1/setup')
          .send({ name: `Racer ${i}`, email: `racer${i}@example.com`, password: `racing passphrase number ${i}` })
          .then((r) => r)));
        let waiting = 0;
        for (let poll = 0; poll < 600 && waiting < 5; poll++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          const [row] = await sql<Array<{ n: number }>>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
          waiting = row!.n;
        }
        if (waiting < 5) throw new Error(`only ${waiting} of 5 setups reached the store`);
        return { pending };
      }).then(({ pending }) => pending);
    } finally {
      await sql.end();
    }
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    for (const loser of answers.filter((r) => r.status === 409)) expect(loser.body.code).toBe('setup.completed');
    const winner = answers.find((r) => r.status === 201)!;
    expect(winner.body.user.role).toBe('admin');
    for (const name of ['svc_session', 'svc_csrf']) expect(cookieNamed(setCookies(winner), name).attributes).toContain('secure');
    for (const loser of answers.filter((r) => r.status === 409)) expect(setCookies(loser)).toEqual([]);

    const rows = await userRows(h);
    expect(rows).toEqual([{ email: winner.body.user.email, role: 'admin' }]);
    const status = await h.http.get('/api/v1/setup/status');
    expect(status.body).toEqual({ needs_setup: false });
  });
});
