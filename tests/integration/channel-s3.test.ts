/**
 * The s3 channel against a local S3-compatible server (s3rver on loopback, in a temporary
 * directory): a report run's result lands under the expanded prefix with its content type and
 * metadata, read back with the S3 client; a missing bucket is a permanent failure; an endpoint
 * the allow-list does not cover is refused by the address guard inside the SDK.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
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
let endpoint: string;
let reportId: string;
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'herald-s3-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
  const address = await server.run();
  endpoint = `http://127.0.0.1:${address.port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: 'reports' }));
  client.destroy();
  h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_OUTBOUND_ALLOW: '127.0.0.1', SVC_DELIVERY_BACKOFF_MS: '10' } });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table t (id int, name text)`;
    await sql`insert into t values (1, 'a,b'), (2, 'say "hi"')`;
  });
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id;
  const q = await editor.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select id, name from t order by id' }).expect(201);
  reportId = (await editor.post('/api/v1/reports').send({ title: 'Nightly Export', query_id: q.body.id }).expect(201)).body.id;
});
afterAll(async () => {
  await h.stop();
  await src.drop();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function runWith(channelId: string, settings: Record<string, unknown>) {
  const d = (await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: channelId, settings }).expect(201)).body;
  const queued = await editor.post(`/api/v1/reports/${reportId}/run`).send({});
  const run = await waitForRun(editor, queued.body.id);
  await editor.delete(`/api/v1/reports/${reportId}/deliveries/${d.id}`).expect(204);
  return run;
}

async function channel(name: string, settings: Record<string, unknown>): Promise<string> {
  const res = await admin.post('/api/v1/channels').send({
    name, type: 's3', settings: { endpoint, bucket: 'reports', access_key_id: 'S3RVER', secret_access_key: 'S3RVER', force_path_style: true, ...settings },
  });
  expect(res.status).toBe(201);
  expect(res.body.settings).toMatchObject({ access_key_id: { configured: true }, secret_access_key: { configured: true }, prefix: settings.prefix ?? 'herald/{report_id}/{date}/' });
  return res.body.id;
}

it('stores the result file under the expanded prefix, with content type and metadata', async () => {
  const id = await channel('Bucket', { prefix: 'exports/{report_title}/{date}/' });
  const run = await runWith(id, { attach: 'csv' });
  expect(run.status).toBe('success');
  const attempt = run.delivery_attempts[0];
  const day = run.created_at.slice(0, 10);
  const stamp = run.created_at.slice(0, 16).replace('T', '-').replace(':', '');
  const key = `exports/nightly-export/${day}/nightly-export-${stamp}.csv`;
  expect(attempt).toMatchObject({ status: 'sent', status_code: 200, detail: `s3://reports/${key}`, peer_message_id: expect.any(String) });
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
  const object = await client.send(new GetObjectCommand({ Bucket: 'reports', Key: key }));
  expect(object.ContentType).toBe('text/csv; charset=utf-8');
  expect(object.Metadata).toMatchObject({ 'herald-message-id': attempt.id, 'herald-run-id': run.id });
  expect(await object.Body!.transformToString()).toBe('id,name\r\n1,"a,b"\r\n2,"say ""hi"""\r\n');
  client.destroy();
});

it('fails permanently for a missing bucket, and validates the prefix', async () => {
  const id = await channel('Nowhere', { bucket: 'no-such-bucket' });
  const run = await runWith(id, { attach: 'json' });
  expect(run.status).toBe('failed');
  expect(run.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 1, status_code: 404, error: { code: 'delivery.rejected' } });
  expect(run.delivery_attempts[0].error.message).toContain('NoSuchBucket');
  const bad = await admin.post('/api/v1/channels').send({ name: 'Bad', type: 's3', settings: { bucket: 'reports', access_key_id: 'a', secret_access_key: 'b', prefix: '../{secret}/' } });
  expect(bad.body.errors[0]).toMatchObject({ field: 'settings.prefix', code: 'validation.format' });
  const noFile = await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: id, settings: {} });
  expect(noFile.body.errors[0]).toMatchObject({ field: 'settings.attach', code: 'validation.required' });
});

it('refuses an endpoint on an address the allow-list does not cover, inside the SDK too', async () => {
  const res = await admin.post('/api/v1/channels/test').send({
    type: 's3', settings: { endpoint: endpoint.replace('127.0.0.1', '[::1]').replace('http:', 'https:'), bucket: 'reports', access_key_id: 'S3RVER', secret_access_key: 'S3RVER', force_path_style: true },
  });
  expect([res.status, res.body.code]).toEqual([422, 'outbound.refused']);
  const ok = await admin.post('/api/v1/channels/test').send({
    type: 's3', settings: { endpoint, bucket: 'reports', access_key_id: 'S3RVER', secret_access_key: 'S3RVER', force_path_style: true },
  });
  expect(ok.status).toBe(200);
  expect(ok.body.detail).toMatch(/^s3:\/\/reports\/herald\//);
});
