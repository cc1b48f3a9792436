/**
 * An unexpected fault (here: the store's schema broken under the running service) answers 500
 * `internal` with nothing of its cause beyond the request id, and is logged at error level with
 * that id.
 */
import postgres from 'postgres';
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';

let h: Herald;
let admin: SessionClient;
let sql: postgres.Sql;

beforeAll(async () => {
  h = await startHerald();
  admin = await setupAdmin(h);
  sql = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined });
});
afterAll(async () => {
  await sql.end();
  await h.stop();
});

it('answers 500 internal, says nothing of the cause, and logs it with the request id', async () => {
  await sql`alter table security_events rename column details to details_gone`;
  const res = await admin.get('/api/v1/security-events').set('X-Request-ID', 'internal-fault-0001');
  expect(res.status).toBe(500);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual({
    type: 'http://127.0.0.1:8080/docs/errors/internal', title: 'Something went wrong on our side', status: 500,
    code: 'internal', i18n_key: 'errors.internal', request_id: 'internal-fault-0001',
  });
  expect(res.text).not.toMatch(/details|column|select|postgres/i);
  const line = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.request_id === 'internal-fault-0001' && l.message === 'unhandled error');
  expect(line?.level).toBe('error');
  expect(JSON.stringify(line)).toMatch(/details/);
});
