/**
 * A read's address validated once is not parsed and validated again (src/http/valid-reads.ts),
 * through the real HTTP edge on the real contract: only the handlers and the authenticator are
 * the test's, and openapi-backend's validateRequest is counted. What is refused is refused every
 * time, access still comes first, a declared header is part of the address, and a handler that
 * changes what it was given changes nothing for the next request.
 */
import request from 'supertest';
import type { Express } from 'express';
import { Writable } from 'node:stream';
import { loadContract } from '../../src/http/contract.js';
import { createHttpApp } from '../../src/http/http-app.js';
import { operationIds } from '../../src/generated/operations.js';
import { NOT_IMPLEMENTED, type Handler, type HandlerMap, type HandlerRequest } from '../../src/handlers/types.js';
import type { Principal } from '../../src/domain/identity/principal.js';
import { createLogger } from '../../src/infra/log/logger.js';
import { ValidReads, VALID_READS_MAX } from '../../src/http/valid-reads.js';

const KEY = 'hk_test-key-for-valid-reads';
const editor: Principal = {
  kind: 'api_key', apiKeyId: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f80', scope: 'write',
  user: { id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f81', name: 'Edda', role: 'editor', mustChangePassword: false },
};

let app: Express;
let validations = 0;
const seen: Array<HandlerRequest<'listRuns'>['query']> = [];
const REPORT = '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f82';

beforeAll(async () => {
  const contract = await loadContract('http://127.0.0.1:8080');
  const validate = contract.api.validateRequest.bind(contract.api);
  contract.api.validateRequest = ((...args: Parameters<typeof validate>) => { validations += 1; return validate(...args); }) as typeof validate;
  const none = Object.fromEntries(operationIds.map((id) => [id, NOT_IMPLEMENTED])) as HandlerMap;
  const handlers: HandlerMap = {
    ...none,
    listRuns: (async (req: HandlerRequest<'listRuns'>) => {
      seen.push({ ...req.query });
      // A handler that changes what it was given: the next request must not see it.
      (req.query as Record<string, unknown>).limit = 999;
      return { status: 200, body: { items: [] } };
    }) as unknown as Handler<'listRuns'>,
    getReport: (async () => ({ status: 404 })) as unknown as Handler<'getReport'>,
    createReport: (async () => ({ status: 201, body: {} })) as unknown as Handler<'createReport'>,
  };
  app = createHttpApp({
    publicUrl: 'http://127.0.0.1:8080',
    trustProxy: false,
    api: contract.api,
    handlers,
    authenticator: { authenticate: async (c) => (c.bearerToken === KEY ? editor : null) },
    logger: createLogger({ format: 'json', level: 'info', stream: new Writable({ write(_c, _e, cb) { cb(); } }) }),
    document: contract.document,
  });
});

const get = (path: string) => request(app).get(path).set('Authorization', `Bearer ${KEY}`);

describe('reads validated once per address', () => {
  it('validates an address once, and hands each request its own coerced parameters', async () => {
    const before = validations;
    await get(`/api/v1/runs?limit=5&report_id=${REPORT}`).expect(200);
    await get(`/api/v1/runs?limit=5&report_id=${REPORT}`).expect(200);
    await get(`/api/v1/runs?limit=5&report_id=${REPORT}`).expect(200);
    expect(validations - before).toBe(1);
    // The number coerced as the contract says, and the first request's change not seen by the others.
    expect(seen.slice(-3)).toEqual(Array(3).fill({ limit: 5, report_id: REPORT }));
    // Another query string is another address.
    await get('/api/v1/runs?limit=6').expect(200);
    expect(validations - before).toBe(2);
    expect(seen.at(-1)).toEqual({ limit: 6 });
  });

  it('validates a HEAD and a GET of the same address once', async () => {
    const before = validations;
    await request(app).head('/api/v1/runs?limit=9').set('Authorization', `Bearer ${KEY}`).expect(200);
    await get('/api/v1/runs?limit=9').expect(200);
    expect(validations - before).toBe(1);
  });

  it('still serves the description\'s two files as Express matched them (any case, a trailing slash), and nothing else under /api/v1/ but operations', async () => {
    const yaml = await request(app).get('/api/v1/openapi.yaml').expect(200);
    expect(yaml.text).toMatch(/^openapi: 3\.0\.3/);
    expect((await request(app).get('/API/V1/OPENAPI.YAML').expect(200)).text).toBe(yaml.text);
    expect((await request(app).get('/api/v1/openapi.json/').expect(200)).body.openapi).toBe('3.0.3');
    const nothing = await request(app).get('/api/v1/openapi.yml').expect(404);
    expect(nothing.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('refuses an invalid address every time, validating it every time', async () => {
    const before = validations;
    for (let i = 0; i < 2; i++) {
      const res = await get('/api/v1/runs?limit=many').expect(422);
      expect(res.body.code).toBe('validation.failed');
    }
    expect(validations - before).toBe(2);
  });

  it('keeps a declared header\'s value in the address: a tag past its length is refused where a short one passed', async () => {
    await get('/api/v1/runs?limit=7').set('If-None-Match', 'W/"a"').expect(200);
    await get('/api/v1/runs?limit=7').set('If-None-Match', 'W/"a"').expect(200);
    const res = await get('/api/v1/runs?limit=7').set('If-None-Match', `W/"${'a'.repeat(3000)}"`).expect(422);
    expect(res.body.code).toBe('validation.failed');
  });

  it('still checks access first at an address validated before', async () => {
    await get('/api/v1/runs?limit=8').expect(200);
    const res = await request(app).get('/api/v1/runs?limit=8').expect(401);
    expect(res.body.code).toBe('auth.unauthenticated');
  });

  it('validates every write: a POST is never kept', async () => {
    const before = validations;
    const body = { title: '' };
    for (let i = 0; i < 2; i++) await request(app).post('/api/v1/reports').set('Authorization', `Bearer ${KEY}`).send(body).expect(422);
    expect(validations - before).toBe(2);
  });
});

describe('ValidReads', () => {
  it('keys a GET by its address and its declared headers only, and keeps nothing for a write or an unresolved parameter', async () => {
    const { api, document } = await loadContract('http://127.0.0.1:8080');
    const reads = new ValidReads(api.definition);
    const list = api.router.getOperation('listRuns')!;
    const a = reads.keyOf(list, '/api/v1/runs?limit=5', { 'if-none-match': 'W/"x"', 'x-other': '1' });
    expect(a).toBe(reads.keyOf(list, '/api/v1/runs?limit=5', { 'if-none-match': 'W/"x"', 'x-other': '2' }));
    expect(a).not.toBe(reads.keyOf(list, '/api/v1/runs?limit=5', {}));
    expect(reads.keyOf(list, '/api/v1/runs?limit=5', {})).not.toBe(reads.keyOf(list, '/api/v1/runs?limit=5', { 'if-none-match': '' }));
    expect(reads.keyOf(api.router.getOperation('createReport')!, '/api/v1/reports', {})).toBeUndefined();
    // A parameter it cannot see in the address (a cookie), or a reference it cannot follow: never kept.
    const withParameter = (p: object) => ({ ...list, parameters: [...(list.parameters ?? []), p] }) as typeof list;
    expect(reads.keyOf(withParameter({ name: 'svc_x', in: 'cookie', schema: { type: 'string' } }), '/api/v1/runs', {})).toBeUndefined();
    expect(reads.keyOf(withParameter({ $ref: '#/components/parameters/Nowhere' }), '/api/v1/runs', {})).toBeUndefined();
    expect(reads.keyOf(withParameter({ $ref: '#/components/parameters/IfNoneMatch' }), '/api/v1/runs', {})).toBeDefined();
    expect(document.components?.parameters).toHaveProperty('IfNoneMatch');
  });

  it('hands out copies, and forgets the oldest address past its bound', () => {
    const reads = new ValidReads({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} }, 3);
    reads.remember('a', { params: {}, query: { status: ['x'] } });
    const got = reads.get('a')!;
    (got.query.status as string[]).push('y');
    expect(reads.get('a')!.query).toEqual({ status: ['x'] });
    // Nested objects too (a deepObject parameter, should the contract get one).
    reads.remember('n', { params: {}, query: { filter: { ids: ['1'] } } });
    ((reads.get('n')!.query.filter as { ids: string[] }).ids).push('2');
    expect(reads.get('n')!.query).toEqual({ filter: { ids: ['1'] } });
    reads.remember('c', { params: {}, query: {} });
    reads.remember('d', { params: {}, query: {} });
    expect(reads.size).toBe(3);
    expect(reads.get('a')).toBeUndefined();
    expect(reads.get('n')).toBeDefined();
    expect(reads.get('d')).toBeDefined();
    expect(VALID_READS_MAX).toBeGreaterThan(100);
  });
});
