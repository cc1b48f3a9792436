/**
 * Redis is away at a due minute: the scheduler still makes the run (the store is its truth), and
 * queues it as soon as Redis answers again, on its next tick, not when the sweep comes round a
 * minute or more later. The clock does not move after the due minute: only the ticks go on.
 */
import { Queue } from 'bullmq';
import postgres from 'postgres';
import { manualClock } from '../../src/core/clock.js';
import { createRedis } from '../../src/infra/queue/queues.js';
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { privateRedis, until, type PrivateRedis } from '../support/private-redis.js';

const clock = manualClock(new Date('2026-06-01T08:59:30.000Z'));
let redis: PrivateRedis;
let h: Herald;
let src: PostgresSource;
let store: postgres.Sql;

beforeAll(async () => {
  redis = await privateRedis();
  await redis.start();
  h = await startHerald({ clock, env: { SVC_ROLES: 'api,scheduler', SVC_SCHEDULER_TICK_SECONDS: '1', SVC_REDIS_URL: redis.url } });
  src = await createPostgresSource(async () => undefined);
  store = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
}, 30_000);
afterAll(async () => {
  await store.end();
  await h.stop();
  await src.drop();
  await redis.remove();
});

it('a run due while Redis is down is queued on the first tick after Redis is back', async () => {
  const admin = await setupAdmin(h);
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  const queryId = (await admin.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id as string;
  const reportId = (await admin.post('/api/v1/reports').send({
    title: 'Nine o\'clock', query_id: queryId, schedule: { cron: '0 9 * * *', timezone: 'UTC' },
  }).expect(201)).body.id as string;

  await redis.stop();
  clock.set(new Date('2026-06-01T09:00:05.000Z'));
  let runId: string | undefined;
  await until(async () => {
    const [row] = await store<Array<{ id: string }>>`select id from runs where report_id = ${reportId}`;
    runId = row?.id;
    return runId !== undefined;
  }, 'the due run to be made while Redis is down', 30_000, 100);
  await until(async () => h.logs.some((l) => l.includes('due runs could not be queued now')), 'the failed enqueue', 30_000, 100);

  await redis.start();
  const connection = createRedis(redis.url, 'worker');
  const queue = new Queue('runs', { connection, prefix: h.iso.queuePrefix });
  try {
    // Only the next ticks can queue it: the clock moves a tick (1 s) per second, up to 09:00:19,
    // short of the sweep, which waits for runs 20 s old.
    await until(async () => {
      if (clock.now() < new Date('2026-06-01T09:00:19.000Z')) clock.advance(1000);
      return (await queue.getJob(runId!)) !== undefined;
    }, 'the run\'s job once Redis is back', 20_000, 1000);
    expect((await queue.getJob(runId!))?.data).toEqual({ runId, reportId });
    const [run] = await store<Array<{ status: string }>>`select status from runs where id = ${runId!}`;
    expect(run?.status).toBe('pending');
  } finally {
    await queue.close();
    connection.disconnect();
  }
}, 90_000);
