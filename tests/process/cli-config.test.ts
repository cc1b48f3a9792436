/**
 * `herald config` as a deploy pipeline runs it, without the API: apply a directory of YAML files,
 * plan again (nothing to do: exit 0 with --detailed-exitcode), change a schedule (exit 2, the diff
 * printed), apply it, export (the change is in), and a broken file (exit 1, the field and line
 * on stderr, nothing applied).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isolate, type Isolated } from '../support/isolation.js';
import { run } from '../support/child-process.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

let iso: Isolated;
let src: PostgresSource;
let dir: string;

beforeAll(async () => {
  iso = await isolate();
  src = await createPostgresSource(async () => undefined);
  dir = mkdtempSync(path.join(tmpdir(), 'herald-config-'));
}, 60_000);
afterAll(async () => {
  await iso?.release();
  await src?.drop();
  rmSync(dir, { recursive: true, force: true });
});

it('applies a directory, plans with detailed exit codes, exports, and refuses a broken file with its line', async () => {
  const c = src.connection('Warehouse') as { host: string; port: number; database: string; username: string; password?: string };
  process.env.HERALD_TEST_WAREHOUSE_PASSWORD = c.password ?? 'x';
  writeFileSync(path.join(dir, '10-connections.yaml'), `apiVersion: herald/v1
kind: Connection
metadata: {name: warehouse}
spec: {name: Warehouse, type: postgres, host: '${c.host}', port: ${c.port}, database: ${c.database}, username: ${c.username}}
`);
  writeFileSync(path.join(dir, '20-reports.yaml'), `apiVersion: herald/v1
kind: Query
metadata: {name: orders}
spec: {name: Orders, connection: warehouse, sql: select 1 as one}
---
apiVersion: herald/v1
kind: Report
metadata: {name: daily-orders}
spec:
  title: Daily orders
  query: orders
  schedule: {cron: '0 7 * * *', timezone: Europe/Berlin}
`);
  writeFileSync(path.join(dir, 'README.txt'), 'not a configuration file\n');
  const env = iso.env;
  // The service has started once (its key file made); the command uses that key, never one of its own.
  expect((await run(['migrate'], env)).code).toBe(0);
  const applied = await run(['config', 'apply', dir], env);
  expect([applied.code, applied.stderr]).toEqual([0, '']);
  expect(applied.stdout).toMatch(/^Applied:\n\+ connection warehouse/);
  expect(applied.stdout).toContain('3 to create, 0 to update, 0 to delete, 0 unchanged');

  const same = await run(['config', 'plan', '--detailed-exitcode', dir], env);
  expect([same.code, same.stdout.trim().split('\n').at(-2)]).toEqual([0, '0 to create, 0 to update, 0 to delete, 3 unchanged']);

  writeFileSync(path.join(dir, '20-reports.yaml'), (await import('node:fs')).readFileSync(path.join(dir, '20-reports.yaml'), 'utf8').replace("'0 7 * * *'", "'30 6 * * 1-5'"));
  const changed = await run(['config', 'plan', '--detailed-exitcode', dir], env);
  expect(changed.code).toBe(2);
  expect(changed.stdout).toContain('~ report daily-orders');
  expect(changed.stdout).toContain('spec.schedule: {"cron":"0 7 * * *","timezone":"Europe/Berlin"} -> {"cron":"30 6 * * 1-5","timezone":"Europe/Berlin"}');
  // Apply exactly that plan: its hash, printed by plan; a stale one is refused.
  const hash = /^plan_hash ([0-9a-f]{64})$/m.exec(changed.stdout)![1]!;
  const stale = await run(['config', 'apply', `--plan-hash=${'0'.repeat(64)}`, dir], env);
  expect([stale.code, stale.stderr]).toEqual([1, expect.stringContaining('import.plan_stale')]);
  expect((await run(['config', 'apply', `--plan-hash=${hash}`, dir], env)).code).toBe(0);
  const exported = await run(['config', 'export'], env);
  expect(exported.code).toBe(0);
  expect(exported.stdout).toContain("cron: 30 6 * * 1-5");

  writeFileSync(path.join(dir, '30-broken.yaml'), `apiVersion: herald/v1
kind: Report
metadata: {name: broken}
spec:
  title: Broken
  query: no-such-query
`);
  const broken = await run(['config', 'apply', dir], env);
  expect(broken.code).toBe(1);
  expect(broken.stderr).toContain('validation.failed');
  expect(broken.stderr).toMatch(/documents\.3\.spec\.query: refers to Query no-such-query.*line 6/);
  const after = await run(['config', 'plan', '--detailed-exitcode', path.join(dir, '20-reports.yaml')], env);
  expect(after.code).toBe(0); // nothing of the broken apply happened; the file matches the store

  // Anything but changes exits 1, so that --detailed-exitcode's 2 means changes only.
  const usage = await run(['config', 'plan'], env);
  expect(usage.code).toBe(1);
  const unset = await run(['config', 'plan', '--detailed-exitcode', dir], { ...env, SVC_DATABASE_URL: '' });
  expect([unset.code, unset.stderr]).toEqual([1, expect.stringContaining('SVC_DATABASE_URL')]);
  // It never makes a key of its own: without the service's key it refuses, and writes nothing.
  const elsewhere = mkdtempSync(path.join(tmpdir(), 'herald-nokey-'));
  const nokey = await run(['config', 'plan', dir], { ...env, SVC_SECRET_KEY: '', SVC_DATA_DIR: elsewhere });
  expect(nokey.code).toBe(1);
  expect(existsSync(path.join(elsewhere, 'secret.key'))).toBe(false);
  rmSync(elsewhere, { recursive: true, force: true });
}, 120_000);
