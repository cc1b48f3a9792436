/**
 * POST /schedules/preview through the API: any signed-in viewer (or a read key) gets a
 * schedule's description and next times; "now" is the injected clock's; an invalid cron or zone
 * is a 422 on its field, and count and from are checked.
 */
import { manualClock } from '../../src/core/clock.js';
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin, type SessionClient } from '../support/identity.js';

const NOW = '2026-11-22T08:00:00.000Z'; // a Sunday
const PATH = '/api/v1/schedules/preview';

let h: Herald;
let admin: SessionClient;
let viewer: SessionClient;

beforeAll(async () => {
  h = await startHerald({ clock: manualClock(new Date(NOW)) });
  admin = await setupAdmin(h);
  viewer = await createSignedInUser(h, admin, { name: 'Vera', email: 'vera@example.com', role: 'viewer' });
});
afterAll(async () => { await h.stop(); });

describe('a viewer previews a schedule', () => {
  it('answers the description and the next 5 times after now', async () => {
    const res = await viewer.post(PATH).send({ cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      description: 'At 08:00, Monday through Friday',
      next: ['2026-11-23T07:00:00.000Z', '2026-11-24T07:00:00.000Z', '2026-11-25T07:00:00.000Z', '2026-11-26T07:00:00.000Z', '2026-11-27T07:00:00.000Z'],
    });
  });

  it('honours from and count, strictly after from, across a DST change', async () => {
    const res = await viewer.post(PATH).send({ cron: '30 2 * * *', timezone: 'Europe/Berlin', from: '2026-03-28T01:30:00.000Z', count: 3 });
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('At 02:30');
    expect(res.body.next).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z']);
  });

  it('answers up to 50 times', async () => {
    const res = await viewer.post(PATH).send({ cron: '*/15 * * * *', timezone: 'UTC', count: 50 });
    expect(res.status).toBe(200);
    expect(res.body.next).toHaveLength(50);
    expect(res.body.next[0]).toBe('2026-11-22T08:15:00.000Z');
    expect(res.body.next[49]).toBe('2026-11-22T20:30:00.000Z');
  });

  it('is open to a read-scoped API key of a viewer', async () => {
    const key = await createKey(admin, { name: 'read', scope: 'read', owner_id: viewer.userId });
    const res = await keyClient(h, key.token).post(PATH).send({ cron: '@daily', timezone: 'Asia/Kathmandu', count: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ description: 'At 00:00', next: ['2026-11-22T18:15:00.000Z'] });
  });

  it('asks for a credential', async () => {
    const res = await h.http.post(PATH).send({ cron: '@daily', timezone: 'UTC' });
    expect(res.status).toBe(401);
  });
});

describe('refusals', () => {
  const fieldsOf = (res: { body: { errors?: Array<{ field: string; code: string }> } }) => res.body.errors?.map((e) => [e.field, e.code]);

  it('refuses an invalid cron on field cron, with a message that says why', async () => {
    const res = await viewer.post(PATH).send({ cron: '0 0 8 * * *', timezone: 'Europe/Berlin' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'cron', code: 'validation.invalid', message: expect.stringMatching(/five fields/) })]);
  });

  it('refuses a cron that never runs', async () => {
    const res = await viewer.post(PATH).send({ cron: '0 0 30 2 *', timezone: 'UTC' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'cron', message: expect.stringMatching(/never runs/) })]);
  });

  it('refuses an unknown time zone on field timezone', async () => {
    const res = await viewer.post(PATH).send({ cron: '0 8 * * *', timezone: 'Mars/Olympus_Mons' });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual([['timezone', 'validation.invalid']]);
  });

  it('names both fields when both are wrong', async () => {
    const res = await viewer.post(PATH).send({ cron: 'every day', timezone: '+01:00' });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual([['cron', 'validation.invalid'], ['timezone', 'validation.invalid']]);
  });

  it.each([0, 51])('refuses count %p on field count', async (count) => {
    const res = await viewer.post(PATH).send({ cron: '@daily', timezone: 'UTC', count });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual([['count', 'validation.range']]);
  });

  it('refuses a from that is not a time, or before 1970', async () => {
    const bad = await viewer.post(PATH).send({ cron: '@daily', timezone: 'UTC', from: 'tomorrow' });
    expect(bad.status).toBe(422);
    expect(fieldsOf(bad)).toEqual([['from', 'validation.format']]);
    const early = await viewer.post(PATH).send({ cron: '@daily', timezone: 'UTC', from: '1969-07-20T20:17:00Z' });
    expect(early.status).toBe(422);
    expect(fieldsOf(early)).toEqual([['from', 'validation.range']]);
  });

  it('refuses a missing cron and an unknown field', async () => {
    const res = await viewer.post(PATH).send({ timezone: 'UTC', every: 'day' });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(expect.arrayContaining([['cron', 'validation.required'], ['every', 'validation.unknown_field']]));
  });
});
