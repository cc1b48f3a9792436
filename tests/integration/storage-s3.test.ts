/**
 * Result files in an S3-compatible bucket (SVC_STORAGE_S3, s3rver on loopback): a run's file
 * is an object under the prefix, downloads stream from it, GET /system/storage names the bucket
 * (never the credentials), and retention deletes the object.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import { buildSchedulerTasks } from '../../src/main/scheduler-tasks.js';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { waitForRun } from '../support/runs.js';

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;
let src: PostgresSource;
let dir: string;
let server: { run(): Promise<AddressInfo>; close(): Promise<void> };
let client: S3Client;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'herald-s3-store-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
  const endpoint = `http://127.0.0.1:${(await server.run()).port}`;
  client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await client.send(new CreateBucketCommand({ Bucket: 'results' }));
  h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_STORAGE_S3: `s3://S3RVER:S3RVER@results/herald?endpoint=${encodeURIComponent(endpoint)}&path_style=true`, SVC_RESULT_RETENTION_DAYS: '1' } });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  // md5 text: a result file past what the store keeps in its own row (inline-results.ts), so it goes to the bucket.
  src = await createPostgresSource(async (sql) => { await sql`create table t as select g as id, md5(g::text) as h from generate_series(1, 3000) g`; });
});
afterAll(async () => {
  await h.stop();
  await src.drop();
  client.destroy();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

it('keeps result files as objects in the bucket, serves them, and retention deletes them', async () => {
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id;
  const q = await editor.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select id, h from t order by id' }).expect(201);
  const r = await editor.post('/api/v1/reports').send({ title: 'In a bucket', query_id: q.body.id }).expect(201);
  const queued = await editor.post(`/api/v1/reports/${r.body.id}/run`).send({}).expect(202);
  const run = await waitForRun(editor, queued.body.id);
  expect(run).toMatchObject({ status: 'success', has_result: true, row_count: 3000 });
  const listed = await client.send(new ListObjectsV2Command({ Bucket: 'results', Prefix: 'herald/' }));
  expect(listed.Contents?.map((o) => o.Key)).toEqual([`herald/${r.body.id}/${run.id}.ndjson.gz`]);
  const csv = await editor.get(`/api/v1/runs/${run.id}/result`).buffer(true);
  expect(csv.text.split('\r\n')).toHaveLength(3002); // header, 3000 rows, and the final line break

  // A small result stays in the store's row: no object, no upload; served and counted the same.
  const few = await editor.post('/api/v1/queries').send({ name: 'Few', connection_id: connectionId, sql: 'select id from t where id <= 3 order by id' }).expect(201);
  const small = await editor.post('/api/v1/reports').send({ title: 'In the store', query_id: few.body.id }).expect(201);
  const smallRun = await waitForRun(editor, (await editor.post(`/api/v1/reports/${small.body.id}/run`).send({}).expect(202)).body.id);
  expect(smallRun).toMatchObject({ status: 'success', has_result: true, row_count: 3 });
  expect((await client.send(new ListObjectsV2Command({ Bucket: 'results', Prefix: 'herald/' }))).Contents?.map((o) => o.Key))
    .toEqual([`herald/${r.body.id}/${run.id}.ndjson.gz`]);
  expect((await editor.get(`/api/v1/runs/${smallRun.id}/result`).buffer(true)).text).toBe('id\r\n1\r\n2\r\n3\r\n');

  const storage = (await admin.get('/api/v1/system/storage')).body;
  expect(storage).toMatchObject({ backend: 's3', location: 's3://results/herald/', files: 2 });
  expect(JSON.stringify(storage)).not.toContain('S3RVER');

  const retention = buildSchedulerTasks(h.process.container, h.process.services).find((t) => t.name === 'result retention')!;
  await retention.run(new Date(Date.now() + 2 * 86_400_000));
  expect((await client.send(new ListObjectsV2Command({ Bucket: 'results', Prefix: 'herald/' }))).Contents ?? []).toEqual([]);
  expect((await editor.get(`/api/v1/runs/${run.id}/result`)).body.code).toBe('run.no_result');
  expect((await editor.get(`/api/v1/runs/${smallRun.id}/result`)).body.code).toBe('run.no_result');
  expect(await h.process.container.sql`select run_id from run_results`).toEqual([]);
});
