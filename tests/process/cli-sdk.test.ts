/**
 * herald-cli (sdk/src/herald-cli.ts, run from source through tsx; tests/process/sdk-package.test.ts
 * runs the packed one) as a pipeline runs it: a child process with HERALD_URL and HERALD_API_KEY
 * against a listening Herald. reports list (--json and the human form), reports run --wait (exit 0
 * for a good report; exit 1 and the run's error code for a failing one; exit 2 and the failed
 * delivery for a partial one; exit 1 when the wait runs out), runs download to a file, links
 * create, config export, plan and apply, a wrong key (exit 1, the problem's code, the key printed
 * nowhere) and a usage error (exit 64).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startSdkHerald, type SdkHerald } from '../support/sdk-herald.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';

const BIN = fileURLToPath(new URL('../../sdk/src/herald-cli.ts', import.meta.url));
// tsx by its file URL: the child runs in a scratch folder, where `--import tsx` would not resolve.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

let t: SdkHerald;
let dir: string;
let goodReport: string;
let goodRun: string;
/** Webhook receivers: one takes every delivery, the other refuses each for good (410: no retry). */
let taker: HttpPeer;
let refuser: HttpPeer;

interface Result { code: number | null; stdout: string; stderr: string }

function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  const base: Record<string, string> = { HERALD_URL: t.proxy.url, HERALD_API_KEY: t.apiKey };
  if (process.env.PATH !== undefined) base.PATH = process.env.PATH;
  if (process.env.HOME !== undefined) base.HOME = process.env.HOME;
  const child = spawn(process.execPath, ['--import', TSX, BIN, ...args], { cwd: dir, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

beforeAll(async () => {
  // Webhooks to the loopback peer below are allowed, as the README says for receivers on this machine.
  t = await startSdkHerald({ env: { SVC_OUTBOUND_ALLOW: '127.0.0.1' } });
  dir = mkdtempSync(path.join(tmpdir(), 'herald-cli-'));
  goodReport = await t.report('Cli Numbers', 'select g as n from generate_series(1, 3) g');
  taker = await httpPeer();
  refuser = await httpPeer();
  refuser.fallback = { status: 410, body: 'gone' };
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await taker?.close();
  await refuser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('reports', () => {
  it('lists every report as JSON and in a short human form', async () => {
    const json = await cli(['reports', 'list', '--json']);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const reports = JSON.parse(json.stdout) as Array<{ id: string; title: string }>;
    expect(reports).toEqual(expect.arrayContaining([expect.objectContaining({ id: goodReport, title: 'Cli Numbers' })]));

    const human = await cli(['reports', 'list']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`${goodReport}  active  Cli Numbers\n`);
  });

  it('runs a report and waits: exit 0 and the finished run', async () => {
    const r = await cli(['reports', 'run', goodReport, '--wait', '--timeout', '60', '--no-deliver', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout) as { id: string; status: string; report_id: string; row_count: number };
    expect(run).toMatchObject({ report_id: goodReport, status: 'success', row_count: 3 });
    goodRun = run.id;

    const human = await cli(['runs', 'get', goodRun]);
    expect(human).toMatchObject({ code: 0 });
    expect(human.stdout).toMatch(new RegExp(`^run ${goodRun}  success  3 rows  \\d+ ms\\n$`));
  });

  it('exits 1 with the run\'s error code when the run fails', async () => {
    const broken = await t.report('Cli Broken', 'select 1/0 as boom');
    const r = await cli(['reports', 'run', broken, '--wait', '--timeout', '60', '--no-deliver']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^run \S+ {2}failed/);
    expect(r.stderr).toMatch(/^error: query\.failed: .*\(run [0-9a-f-]{36}\)\n$/);
  });

  it('exits 2 when the run is partial (a delivery failed), naming the failed delivery', async () => {
    const reportId = await t.report('Cli Partial', 'select 1 as one');
    const channel = async (name: string, peer: HttpPeer) => (await t.client.call('createChannel', {
      body: { name, type: 'webhook', settings: { url: `${peer.url}/hook` } },
    })).id;
    for (const channelId of [await channel('Cli Hook', taker), await channel('Cli Gone Hook', refuser)]) {
      await t.client.call('createDelivery', { path: { reportId }, body: { channel_id: channelId, settings: {} } });
    }

    const r = await cli(['reports', 'run', reportId, '--wait', '--timeout', '60', '--json']);
    expect(r.code).toBe(2);
    const run = JSON.parse(r.stdout) as { id: string; status: string; delivery_attempts: Array<{ channel_name: string; status: string; status_code: number }> };
    expect(run.status).toBe('partial');
    expect(run.delivery_attempts.map((a) => [a.channel_name, a.status, a.status_code])).toEqual([
      ['Cli Hook', 'sent', 200], ['Cli Gone Hook', 'failed', 410],
    ]);
    expect(r.stderr).toMatch(new RegExp(`^error: delivery\\.rejected: the delivery to "Cli Gone Hook" failed: .* \\(run ${run.id}\\)\n$`));
    expect([taker.requests.length, refuser.requests.length]).toEqual([1, 1]);
  });

  it('exits 1 when the wait runs out, with the run still going', async () => {
    const slow = await t.report('Cli Slow', 'select pg_sleep(4) as slept');
    const r = await cli(['reports', 'run', slow, '--wait', '--timeout', '1', '--no-deliver']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: timeout: run [0-9a-f-]{36} is still (pending|running) after 1 s\n$/);
  });

  it('without --wait prints the queued run and exits 0', async () => {
    const r = await cli(['reports', 'run', goodReport, '--no-deliver', '--json', '--idempotency-key', 'cli-test-key-1']);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout) as { id: string; status: string };
    expect(['pending', 'running', 'success']).toContain(run.status);
    // The same key answers the same run.
    const again = await cli(['reports', 'run', goodReport, '--no-deliver', '--json', '--idempotency-key', 'cli-test-key-1']);
    expect((JSON.parse(again.stdout) as { id: string }).id).toBe(run.id);
  });
});

describe('results', () => {
  it('downloads a run\'s result to a file', async () => {
    const r = await cli(['runs', 'download', goodRun, '--format', 'csv', '-o', 'out.csv']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^wrote out\.csv \(cli-numbers-.*\.csv\)\n$/);
    expect(readFileSync(path.join(dir, 'out.csv'), 'utf8').split(/\r?\n/).filter(Boolean)).toEqual(['n', '1', '2', '3']);

    const stdout = await cli(['runs', 'download', goodRun, '--format', 'json', '-o', '-']);
    expect(stdout.code).toBe(0);
    expect(stdout.stdout).toContain('3');
  });

  it('creates a shared link and prints its URL, which downloads the file', async () => {
    const r = await cli(['links', 'create', goodRun, '--days', '2', '--format', 'csv']);
    expect(r.code).toBe(0);
    const url = r.stdout.trim();
    expect(url).toMatch(/\/r\/[A-Za-z0-9_-]+$/);
    const token = url.split('/r/')[1]!;
    const file = await t.client.downloadShared(token);
    expect((await new Response(file.stream).text()).split(/\r?\n/).filter(Boolean)).toEqual(['n', '1', '2', '3']);

    const json = await cli(['links', 'create', goodRun, '--days', '1', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ run_id: goodRun, status: 'active' });
  });
});

describe('config', () => {
  it('exports YAML to a file, plans it, applies it, and then plans nothing to do', async () => {
    const r = await cli(['config', 'export', '-o', 'herald.yaml']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const yaml = readFileSync(path.join(dir, 'herald.yaml'), 'utf8');
    expect(yaml).toContain('kind: Report');
    expect(yaml).toContain('Cli Numbers');

    const plan = await cli(['config', 'plan', 'herald.yaml', '--json']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ mode: 'plan', applied: false });
    const human = await cli(['config', 'plan', 'herald.yaml']);
    expect(human.stdout).toMatch(/^plan: \d+ to create, \d+ to update, \d+ to delete, \d+ unchanged$/m);

    const applied = await cli(['config', 'apply', 'herald.yaml', '--json']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ mode: 'apply', applied: true });
    // Applied once, the same YAML plans nothing to do.
    const again = await cli(['config', 'plan', 'herald.yaml']);
    expect(again.stdout).toMatch(/^plan: 0 to create, 0 to update, 0 to delete, [1-9]\d* unchanged$/m);
  });
});

describe('errors', () => {
  it('a wrong key: exit 1, the problem\'s code and request id, the key printed nowhere', async () => {
    const wrong = 'hk_wrongwrongwrongwrongwrongwrong1234';
    const r = await cli(['reports', 'list'], { HERALD_API_KEY: wrong });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: auth\.[a-z_.]+: .* \(request \S+\)\n$/);
    expect(r.stdout + r.stderr).not.toContain(wrong);
    expect(r.stdout + r.stderr).not.toContain(t.apiKey);
  });

  it('a usage error exits 64 with the usage text', async () => {
    const r = await cli(['runs', 'download', goodRun]);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('error: -o FILE is required');
    expect(r.stderr).toContain('usage: herald-cli runs download RUN_ID');
    const unknown = await cli(['reports', 'explode']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('usage: herald-cli <command>');
    // An unset CI variable: an empty REPORT_ID is a usage error, not a question to the API.
    const empty = await cli(['reports', 'run', '']);
    expect([empty.code, empty.stderr.split('\n')[0]]).toEqual([64, 'error: REPORT_ID is empty (is its CI variable set?)']);
  });

  it('takes HERALD_URL with the API\'s base path (as the curl examples\' $B) as the server\'s address', async () => {
    const r = await cli(['reports', 'list', '--json'], { HERALD_URL: `${t.proxy.url}/api/v1/` });
    expect(r.code).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
  });
});
