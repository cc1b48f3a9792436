/**
 * What an admin sees when Redis goes away, with the scheduler as a real `herald scheduler` child
 * process (ticks of 1 s) on a private Redis, and the API in process on the same store: the
 * heartbeat URL (a receiver on loopback) is called while the instance is healthy; Redis stops,
 * and the receiver gets the fail URL's call with the reason, no more heartbeats, and a
 * queue.unavailable alert on the alert webhook; Redis comes back, and the heartbeat resumes and
 * the alert webhook gets the resolved message.
 */
import { startHerald, type Herald as InProcess } from '../support/harness.js';
import { killChildren, startedScheduler, type Herald } from '../support/child-process.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';
import { privateRedis, until, type PrivateRedis } from '../support/private-redis.js';

let h: InProcess;
let admin: SessionClient;
let redis: PrivateRedis;
let peer: HttpPeer;
let scheduler: Herald;

const beats = () => peer.requests.filter((r) => r.path === '/beat/token-abc');
const fails = () => peer.requests.filter((r) => r.path === '/down/token-abc');
const alerts = () => peer.requests.filter((r) => r.path === '/alerts').map((r) => JSON.parse(r.body) as { alert: { event: string; kind: string }; body: string });

beforeAll(async () => {
  redis = await privateRedis();
  await redis.start();
  peer = await httpPeer();
  h = await startHerald({ env: { SVC_REDIS_URL: redis.url, SVC_OUTBOUND_ALLOW: '127.0.0.1' } });
  admin = await setupAdmin(h);
  const hook = (await admin.post('/api/v1/channels').send({ name: 'Ops hook', type: 'webhook', settings: { url: `${peer.url}/alerts` } }).expect(201)).body.id;
  const current = (await admin.get('/api/v1/settings/alerts').expect(200)).body;
  await admin.put('/api/v1/settings/alerts').send({
    version: current.version, channel_ids: [hook], fallback_channel_id: null, repeat_minutes: 60,
    heartbeat: { url: `${peer.url}/beat/token-abc`, method: 'GET', interval_seconds: 30, fail_url: `${peer.url}/down/token-abc` },
  }).expect(200);
  scheduler = await startedScheduler({ ...h.iso.env, SVC_REDIS_URL: redis.url, SVC_OUTBOUND_ALLOW: '127.0.0.1', SVC_SCHEDULER_TICK_SECONDS: '1' });
}, 90_000);

afterAll(async () => {
  await killChildren();
  await h?.stop();
  await peer?.close();
  await redis?.remove();
}, 60_000);

it('calls the heartbeat while healthy; on a Redis outage calls the fail URL once, stops, and alerts; then resumes and says it is resolved', async () => {
  await until(async () => beats().length >= 1, 'the first heartbeat', 30_000, 100);
  expect(beats()[0]!.method).toBe('GET');
  expect(fails()).toHaveLength(0);
  expect(alerts()).toHaveLength(0);

  await redis.stop();
  await until(async () => fails().length === 1, 'the fail URL to be called', 30_000, 100);
  expect(fails()[0]!.body).toMatch(/^Herald is unhealthy: redis: Redis does not answer/);
  await until(async () => alerts().some((a) => a.alert.kind === 'queue.unavailable' && a.alert.event === 'opened'), 'the queue.unavailable alert', 30_000, 100);
  const beatsWhileDown = beats().length;
  // Several ticks pass with Redis away: no heartbeat, and the fail URL is not called again.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(beats()).toHaveLength(beatsWhileDown);
  expect(fails()).toHaveLength(1);
  const status = (await admin.get('/api/v1/settings/alerts').expect(200)).body.status;
  expect(status.heartbeat.state).toBe('stopped');
  expect(status.open_problems.map((p: { kind: string }) => p.kind)).toContain('queue.unavailable');

  await redis.start();
  await until(async () => beats().length > beatsWhileDown, 'the heartbeat to resume', 60_000, 100);
  await until(async () => alerts().some((a) => a.alert.kind === 'queue.unavailable' && a.alert.event === 'resolved'), 'the resolved message', 60_000, 100);
  const resolved = alerts().find((a) => a.alert.event === 'resolved')!;
  expect(resolved.body).toMatch(/^Resolved after \d+ s: Redis does not answer/);
  // The heartbeat's URLs carry a token: the scheduler's logs never show it.
  expect(scheduler.stdout() + scheduler.stderr()).not.toContain('token-abc');
}, 150_000);
