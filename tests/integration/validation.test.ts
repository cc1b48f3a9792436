/**
 * Request validation from openapi.yaml through openapi-backend with ajv-formats: formats
 * (uuid, date-time, email) are enforced, and every failure is a 422 validation.failed problem
 * with a stable per-field code.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, keyClient, setupAdmin, type SessionClient } from '../support/identity.js';
import type { HttpClient } from '../support/harness.js';

let h: Herald;
let admin: SessionClient;
let key: HttpClient;
beforeAll(async () => {
  h = await startHerald();
  admin = await setupAdmin(h);
  key = keyClient(h, (await createKey(admin, { name: 'validation', scope: 'admin' })).token);
});
afterAll(async () => { await h.stop(); });

const fieldsOf = (body: { errors?: Array<{ field: string; code: string }> }) => (body.errors ?? []).map((e) => `${e.field}:${e.code}`);

describe('request validation', () => {
  it('rejects a malformed id in the path with 422 on that parameter', async () => {
    const res = await key.get('/api/v1/users/not-a-uuid');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(fieldsOf(res.body)).toEqual(['userId:validation.format']);
  });

  it('answers 404 not_found for a well-formed id that does not exist', async () => {
    const res = await key.get('/api/v1/users/01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('rejects a malformed time with validation.format', async () => {
    const res = await key.post('/api/v1/api-keys').send({ name: 'k', scope: 'read', expires_at: 'tomorrow morning' });
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['expires_at:validation.format']);
  });

  it('rejects a malformed email with validation.format', async () => {
    const res = await key.post('/api/v1/users').send({ name: 'N', email: 'not-an-email', role: 'viewer' });
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['email:validation.format']);
  });

  it('reports every problem of a body at once, each with its code', async () => {
    const res = await key.post('/api/v1/users').send({ email: 'x@example.com', role: 'owner', colour: 'blue' });
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body).sort()).toEqual(['colour:validation.unknown_field', 'name:validation.required', 'role:validation.enum']);
  });

  it('rejects a wrong type with validation.type', async () => {
    const res = await key.patch('/api/v1/users/01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70').send({ enabled: 'yes', version: 1 });
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['enabled:validation.type']);
  });

  it.each(['0', '201', 'ten'])('rejects limit=%s with 422 on field limit', async (limit) => {
    const res = await key.get(`/api/v1/users?limit=${limit}`);
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toBe('limit');
    expect(['validation.range', 'validation.type']).toContain(res.body.errors[0].code);
  });

  it('defaults limit to 50 and accepts 1..200', async () => {
    expect((await key.get('/api/v1/users')).status).toBe(200);
    expect((await key.get('/api/v1/users?limit=200')).status).toBe(200);
  });

  it('rejects a cursor that does not decode with 422 on field cursor', async () => {
    const res = await key.get('/api/v1/users?cursor=%25%25garbage');
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['cursor:validation.invalid']);
  });

  it('checks credentials before the body, so an unauthenticated caller learns nothing of the schema', async () => {
    const res = await h.http.post('/api/v1/users').send({ bogus: true });
    expect(res.status).toBe(401);
    expect(res.body.errors).toBeUndefined();
  });
});
