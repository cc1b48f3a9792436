import { Writable } from 'node:stream';
import { createLogger } from '../../src/infra/log/logger.js';
import { redactText, redactValue, SecretRegistry } from '../../src/infra/log/redact.js';

const MASK = '[redacted]';

describe('redactText', () => {
  it.each([
    ['postgres://herald:s3cr3t-pw@db.internal:5432/herald', 's3cr3t-pw', 'postgres://herald:[redacted]@db.internal:5432/herald'],
    ['connecting to redis://:r3dis-pw@127.0.0.1:6379/0 failed', 'r3dis-pw', 'redis://:[redacted]@127.0.0.1:6379/0'],
    ['smtps://mailer:m%40il-pw@smtp.example.com:465', 'm%40il-pw', 'smtps://mailer:[redacted]@smtp.example.com:465'],
  ])('masks the password of a URL with credentials: %s', (text, secret, expected) => {
    const out = redactText(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(expected);
  });

  it('masks Bearer and Basic authorization values', () => {
    const out = redactText('Authorization: Bearer eyJhbGciOi.payload.sig and authorization: basic dXNlcjpwYXNz');
    expect(out).not.toContain('eyJhbGciOi');
    expect(out).not.toContain('dXNlcjpwYXNz');
    expect(out).toContain(`Bearer ${MASK}`);
    expect(out).toContain(`basic ${MASK}`);
  });

  it('masks Herald API keys anywhere in text', () => {
    const out = redactText('key=hk_AbCdEf0123456789_xyz used from 10.0.0.1; later hk_ZZZZZZZZzzzz9');
    expect(out).not.toContain('AbCdEf0123456789');
    expect(out).not.toContain('ZZZZZZZZzzzz9');
    expect(out).toContain(`hk_${MASK}`);
  });

  it('masks password=, token= and similar pairs in query strings, forms and cookies', () => {
    const out = redactText('/x?user=ann&password=hunter2&token=tok-123&api_key=ak-9 Cookie: svc_session=sess-abc; svc_csrf=csrf-def; theme=dark');
    for (const secret of ['hunter2', 'tok-123', 'ak-9', 'sess-abc', 'csrf-def']) expect(out).not.toContain(secret);
    expect(out).toContain('user=ann');
    expect(out).toContain('theme=dark');
    expect(out).toContain(`password=${MASK}`);
  });

  it('masks "password" and similar fields inside JSON text', () => {
    const out = redactText('{"email":"a@example.com","password":"hun\\"ter2","new_password": "n3w-pw","access_token":"at-1"}');
    expect(out).not.toContain('hun');
    expect(out).not.toContain('n3w-pw');
    expect(out).not.toContain('at-1');
    expect(out).toContain('"email":"a@example.com"');
    expect(JSON.parse(out)).toMatchObject({ password: MASK, new_password: MASK });
  });

  it('passes plain text (ids, routes, methods) by the patterns, still scrubbing registered secrets and API keys in it', () => {
    for (const plain of ['GET', '/api/v1/reports/{reportId}', '0194f0e2-7b1c-7000-8000-000000000001', 'listReports', 'http.request_done']) {
      expect(redactText(plain)).toBe(plain);
    }
    const key = `hk_${'A'.repeat(43)}`;
    expect(redactText(`/api/v1/${key}`)).toBe(`/api/v1/hk_${MASK}`);
    expect(redactText(`prefix${key}`)).not.toContain('A'.repeat(43));
    const registry = new SecretRegistry();
    registry.add('s3cr3t-value');
    expect(redactText('/x/s3cr3t-value/y', registry)).toBe(`/x/${MASK}/y`);
    // One character outside the plain set and the patterns apply again.
    expect(redactText('token=abcdef')).toBe(`token=${MASK}`);
    expect(redactText('secret:abcdefgh')).toBe(`secret:${MASK}`);
  });

  it('leaves ordinary text alone', () => {
    const text = 'run 42 of report weekly-sales finished in 1.2 s (https://example.com/docs)';
    expect(redactText(text)).toBe(text);
  });

  it('scrubs registered secret values from any string', () => {
    const registry = new SecretRegistry();
    registry.add('Zq9-registered-value');
    registry.add('short'); // too short to register: would mask ordinary words
    registry.add(undefined);
    const out = redactText('prefixZq9-registered-valuesuffix and again Zq9-registered-value; a short word', registry);
    expect(out).not.toContain('Zq9-registered-value');
    expect(out).toContain('a short word');
    expect(out.split(MASK)).toHaveLength(3);
  });
});

describe('redactText: review cases', () => {
  it.each([
    ['https://ghp_SECRETuser0only@github.com/x', 'ghp_SECRETuser0only', `https://${MASK}@github.com/x`],
    ['postgres://user:pa%40ss@host/db', 'pa%40ss', `postgres://user:${MASK}@host/db`],
    ['redis://:password@host:6379', 'password@', `redis://:${MASK}@host:6379`],
  ])('masks the credentials of a URL, user part alone included: %s', (text, secret, expected) => {
    const out = redactText(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(expected);
  });

  it('keeps URLs without credentials, and e-mail addresses, readable', () => {
    const text = 'GET https://example.com:8443/a/@b?c=d@e ok; mail a@example.com; http://[::1]:8080/x';
    expect(redactText(text)).toBe(text);
  });

  it.each([
    ['aws_secret_access_key=SECRET-1', `aws_secret_access_key=${MASK}`],
    ['client_secret: SECRET-1', `client_secret: ${MASK}`],
    ['api_key=SECRET-1', `api_key=${MASK}`],
    ['access_token=SECRET-1', `access_token=${MASK}`],
    ['{"x":1,refresh_token":"SECRET-1"}', `refresh_token":"${MASK}"`],
    ['"aws_secret_access_key": "SECRET-1"', `"aws_secret_access_key": "${MASK}"`],
    ['/cb?password=SECRET-1&x=1', `password=${MASK}&x=1`],
    ["db.password = 'SECRET-1' next", `db.password = '${MASK}' next`],
    ['failed: token: SECRET-1', `token: ${MASK}`],
    ['token_id=abc,token=SECRET-1', `token_id=abc,token=${MASK}`],
  ])('masks key=value and key: value pairs whose key holds a secret word: %s', (text, expected) => {
    const out = redactText(text);
    expect(out).not.toContain('SECRET-1');
    expect(out).toContain(expected);
  });

  it.each([
    ['Authorization: Token SECRET-2', `Authorization: Token ${MASK}`],
    ['Authorization: Basic dXNlcjpwYXNz', `Authorization: Basic ${MASK}`],
    ['Authorization: SECRET-2', `Authorization: ${MASK}`],
    ['Proxy-Authorization: Weird SECRET-2 from 10.0.0.1', `Proxy-Authorization: ${MASK} from 10.0.0.1`],
    ['X-Api-Key: SECRET-2', `X-Api-Key: ${MASK}`],
    ['Cookie: a=b; svc_session=SECRET-2', `Cookie: a=b; svc_session=${MASK}`],
    ['Set-Cookie: svc_session=SECRET-2; Path=/', `Set-Cookie: svc_session=${MASK}; Path=/`],
    ['Cookie: svc_device_AbCdEfGh=1700000000.SECRET-2; theme=dark', `svc_device_AbCdEfGh=${MASK}; theme=dark`],
  ])('masks header-like lines: %s', (text, expected) => {
    const out = redactText(text);
    expect(out).not.toContain('SECRET-2');
    expect(out).not.toContain('dXNlcjpwYXNz');
    expect(out).toContain(expected);
  });

  it('masks Herald API keys (hk_ + 43 base64url characters) wherever they sit, not their 8-character prefix', () => {
    const key = `hk_${'Ab3dE-_9'.repeat(5)}xyz`;
    const out = redactText(`bare ${key} (${key}) glued_${key} prefix hk_Ab3dE`);
    expect(out).not.toContain('Ab3dE-_9');
    expect(out).toBe(`bare hk_${MASK} (hk_${MASK}) glued_hk_${MASK} prefix hk_Ab3dE`);
    expect(redactText('constraint users_chk_email_format')).toBe('constraint users_chk_email_format');
  });

  it('keeps fields that describe a secret without holding one readable', () => {
    const text = 'must_change_password: true password_changed_at=2026-01-01T00:00:00Z token_count=3 '
      + 'sessions_ended=2 api_key_id=01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70 status_code=500 {"has_password":false}';
    expect(redactText(text)).toBe(text);
  });

  it('runs in linear time on long text', () => {
    const started = Date.now();
    for (const text of ['a'.repeat(200_000), 'token'.repeat(40_000), 'https://a'.repeat(20_000)]) redactText(text);
    // Quadratic would take minutes on these; linear is milliseconds (a bound with room for a loaded machine).
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('redactValue', () => {
  it('masks fields named password, token, secret, authorization or cookie at any depth', () => {
    const value = {
      user: 'ann',
      password: 'pw-top',
      nested: {
        list: [{ token: 'tok-deep', id: 7 }, { deeper: { secret: 'sec-deep', Authorization: 'Bearer x', cookie: 'c=1' } }],
        totp_secret: 'JBSWY3DP',
        api_key: 'k-1',
      },
      headers: { authorization: 'Basic Zm9vOmJhcg==', cookie: 'svc_session=abc' },
      token_configured: true,
      password_changed_at: '2026-01-01T00:00:00Z',
    };
    const out = redactValue(value) as Record<string, unknown>;
    const json = JSON.stringify(out);
    for (const secret of ['pw-top', 'tok-deep', 'sec-deep', 'Bearer x', 'c=1', 'JBSWY3DP', 'k-1', 'Zm9vOmJhcg', 'svc_session=abc']) {
      expect(json).not.toContain(secret);
    }
    expect(out).toMatchObject({
      user: 'ann',
      password: MASK,
      nested: { list: [{ token: MASK, id: 7 }, { deeper: { secret: MASK, Authorization: MASK, cookie: MASK } }], totp_secret: MASK },
      headers: { authorization: MASK, cookie: MASK },
      token_configured: true,
      password_changed_at: '2026-01-01T00:00:00Z',
    });
    // The input is not changed.
    expect(value.password).toBe('pw-top');
  });

  it('redacts strings inside values whose field names are harmless', () => {
    const out = redactValue({ url: 'postgres://u:pw-in-url@h/db', args: ['Bearer tok-in-array'] });
    const json = JSON.stringify(out);
    expect(json).not.toContain('pw-in-url');
    expect(json).not.toContain('tok-in-array');
  });

  it('masks webhook URLs whole, and the url of webhook settings, but keeps other URLs readable', () => {
    const hook = 'https://hooks.slack.com/services/T000/B000/XXXXSECRET';
    const out = redactValue({
      webhook_url: hook,
      ops_webhook_url: hook,
      webhookUrl: hook,
      webhook: { url: hook, method: 'POST', name: 'ops channel' },
      webhooks: [hook, { url: hook }],
      webhook_id: 'w-1',
      url: 'https://user:pw-in-url@example.com/reports/7',
      public_url: 'https://herald.example.com/app',
    });
    expect(JSON.stringify(out)).not.toContain('XXXXSECRET');
    expect(JSON.stringify(out)).not.toContain('pw-in-url');
    expect(out).toEqual({
      webhook_url: MASK,
      ops_webhook_url: MASK,
      webhookUrl: MASK,
      webhook: { url: MASK, method: 'POST', name: 'ops channel' },
      webhooks: [MASK, { url: MASK }],
      webhook_id: 'w-1',
      url: `https://user:${MASK}@example.com/reports/7`,
      public_url: 'https://herald.example.com/app',
    });
  });

  it('masks fields whose name holds a secret word anywhere, and keeps ordinary log fields', () => {
    const value = {
      aws_secret_access_key: 'SECRET-3', client_secret: 'SECRET-3', svc_session: 'SECRET-3',
      must_change_password: true, sessions_ended: 2, api_key_id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70',
      password_changed_at: '2026-01-01T00:00:00Z', token_count: 3,
    };
    expect(redactValue(value)).toEqual({
      aws_secret_access_key: MASK, client_secret: MASK, svc_session: MASK,
      must_change_password: true, sessions_ended: 2, api_key_id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70',
      password_changed_at: '2026-01-01T00:00:00Z', token_count: 3,
    });
  });

  it('redacts the message and the stack of errors', () => {
    const registry = new SecretRegistry();
    registry.add('registered-in-error');
    const err = new Error('cannot connect to postgres://herald:err-pw@db:5432/x (registered-in-error)');
    (err as Error & { code?: string }).code = 'ECONNREFUSED';
    const out = redactValue({ err }, registry) as { err: { message: string; stack: string; code: string } };
    expect(out.err.message).not.toContain('err-pw');
    expect(out.err.message).not.toContain('registered-in-error');
    expect(out.err.stack).toContain('Error: cannot connect');
    expect(out.err.stack).not.toContain('err-pw');
    expect(out.err.stack).not.toContain('registered-in-error');
    expect(out.err.code).toBe('ECONNREFUSED');
  });

  it('survives cycles and buffers', () => {
    const a: Record<string, unknown> = { name: 'a', raw: Buffer.from('secret bytes') };
    a.self = a;
    const out = redactValue(a) as Record<string, unknown>;
    expect(out.self).toBe('[truncated]');
    expect(out.raw).toBe('[12 bytes]');
  });
});

describe('createLogger', () => {
  it('never writes planted secrets, even at debug level', () => {
    const lines: string[] = [];
    const stream = new Writable({ write(chunk: Buffer, _e, cb) { lines.push(chunk.toString('utf8')); cb(); } });
    const registry = new SecretRegistry();
    registry.add('PLANTED-registered-key');
    const logger = createLogger({ format: 'json', level: 'debug', registry, stream, base: { service: 'herald' } });

    logger.debug('connecting to postgres://herald:PLANTED-db-pw@db/herald with PLANTED-registered-key');
    logger.debug('request', {
      headers: { authorization: 'Bearer hk_PLANTEDapikey0001', cookie: 'svc_session=PLANTED-session' },
      url: '/api/v1/x?token=PLANTED-query-token',
      body: { email: 'a@example.com', password: 'PLANTED-body-pw', nested: { deep: { client_secret: 'PLANTED-deep' } } },
      raw: '{"password":"PLANTED-json-pw"}',
    });
    logger.info('mixed', { note: 'key PLANTED-registered-key in free text', token: 'PLANTED-token-field' });
    logger.error('store failed', { err: new Error('auth failed for postgres://u:PLANTED-err-pw@db/x') });
    logger.error(new Error('thrown with Basic UExBTlRFRC1iYXNpYw== inside'));
    logger.warn('error as meta', new Error('meta error password=PLANTED-meta-pw'));
    logger.child({ request_id: 'r-1', secret: 'PLANTED-child-secret' }).debug('from a child', { authorization: 'PLANTED-child-auth' });
    logger.debug({ message: 'object message', password: 'PLANTED-object-pw' });

    const out = lines.join('');
    expect(lines.length).toBe(8);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(out).toContain('object message');
    expect(out).toContain('a@example.com');
    expect(out.match(/PLANTED[^"\\\s]*/g) ?? []).toEqual([]);
    expect(out).not.toContain('UExBTlRFRC1iYXNpYw');
  });

  it('redacts the text format too', () => {
    const lines: string[] = [];
    const stream = new Writable({ write(chunk: Buffer, _e, cb) { lines.push(chunk.toString('utf8')); cb(); } });
    const logger = createLogger({ format: 'text', level: 'debug', stream });
    logger.debug('dsn postgres://u:PLANTED-text-pw@h/db', { password: 'PLANTED-text-field' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('dsn postgres://u:[redacted]@h/db');
    expect(lines[0]).not.toContain('PLANTED');
  });
});

describe('store errors', () => {
  it('masks the values of a failed statement (drizzle "params:") and bcrypt hashes', () => {
    const hash = '$2b$12$Sy/MjUqV0c5r3e1Yp2wZ9OeB8m2l1kq7c3R0aG9x6h5bYt4N3u2Wa';
    const err = new Error(`Failed query: update "users" set "password_hash" = $1 where "users"."id" = $2\nparams: ${hash},01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70`);
    const out = JSON.stringify(redactValue({ err }));
    expect(out).not.toContain(hash);
    expect(out).not.toContain('01936b2e-7a4f');
    expect(out).toContain('Failed query: update');
    expect(redactText(`stored ${hash} for the user`)).toBe(`stored ${MASK} for the user`);
  });

  it('masks parameter values that span lines, up to the first stack frame', () => {
    const text = 'Error: Failed query: insert into "notes" values ($1, $2)\nparams: first line,SECRET-A\nSECRET-B on a second line\n    at query (/app/x.js:1:1)\n    at main (/app/y.js:2:2)';
    const out = redactText(text);
    expect(out).not.toContain('SECRET-A');
    expect(out).not.toContain('SECRET-B');
    expect(out).toContain('Failed query: insert into "notes"');
    expect(out).toContain('at query (/app/x.js:1:1)');
    expect(redactText('params: one\nTWO-PLANTED')).toBe(`params: ${MASK}`);
  });
});

describe('codes', () => {
  it('masks second-factor and recovery codes and OAuth\'s ?code=, but keeps error and exit codes readable', () => {
    for (const text of ['totp_code=123456', 'recovery_code: ABCD-EFGH-1234', 'auth_code=xyz987', 'GET /callback?code=SPLxlOBeZQ&state=1', 'ticket=tk_abcdef123456']) {
      const out = redactText(text);
      expect({ text, out }).toEqual({ text, out: expect.stringContaining('[redacted]') });
      expect(out).not.toMatch(/123456|ABCD-EFGH|xyz987|SPLxlOBeZQ|tk_abcdef/);
    }
    expect(redactText('GET /callback?code=SPLxlOBeZQ&state=1')).toContain('&state=1');
    for (const text of ['error code: 23505', 'exit code: 1', 'code: ECONNREFUSED', 'status_code=500']) {
      expect(redactText(text)).toBe(text);
    }
  });
});
