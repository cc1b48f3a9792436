/**
 * The README's "First run with curl" block, run as written by bash and curl against a real
 * `herald serve` (only the address changed): the examples a newcomer copies must keep working.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { isolate, type Isolated } from '../support/isolation.js';
import { freePorts, herald, killChildren, waitUntilLive } from '../support/child-process.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { httpPeer, smtpPeer, type HttpPeer, type SmtpPeer } from '../support/peers.js';
import { Webhook } from 'standardwebhooks';

const execFileAsync = promisify(execFile);
let iso: Isolated;
let port: number;
let shop: PostgresSource;
let smtp: SmtpPeer;
let hook: HttpPeer;

beforeAll(async () => {
  iso = await isolate();
  shop = await createPostgresSource(async (sql) => {
    await sql`create table orders (id int primary key, status text not null, total numeric(12,2) not null)`;
    await sql`insert into orders values (1, 'shipped', 10.50), (2, 'open', 99), (3, 'shipped', 5.25)`;
  });
  smtp = await smtpPeer();
  hook = await httpPeer();
  [port] = (await freePorts(1)) as [number];
  // As the README says for receivers on this machine: SVC_OUTBOUND_ALLOW=127.0.0.1.
  const server = herald(['serve'], { ...iso.env, SVC_ROLES: 'api,scheduler,worker', SVC_LISTEN: `127.0.0.1:${port}`, SVC_OUTBOUND_ALLOW: '127.0.0.1' });
  await waitUntilLive(server, port);
}, 60_000);
afterAll(async () => {
  await killChildren();
  await iso?.release();
  await shop?.drop();
  await smtp?.close();
  await hook?.close();
}, 20_000);

/** The first ```sh block after the heading. */
function readmeBlock(heading: string): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const at = readme.indexOf(`## ${heading}`);
  expect(at).toBeGreaterThanOrEqual(0);
  const m = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  return m![1]!;
}

const json = (line: string) => JSON.parse(line) as Record<string, unknown>;
/**
 * A returning user's shell: $B, signed in as the first run's admin ($JAR, $CSRF) and, given a
 * name, a new admin API key in $TOKEN.
 */
const signedInAgain = (keyName?: string) => [
  `B=http://127.0.0.1:${port}/api/v1`,
  `JAR=$(mktemp)`,
  `curl -s -c $JAR -X POST $B/auth/login -H 'Content-Type: application/json' -d '{"email":"ada@example.com","password":"correct horse battery staple"}' >/dev/null`,
  `CSRF=$(awk '$6=="svc_csrf"{print $7}' $JAR)`,
  ...(keyName ? [`TOKEN=$(curl -s -b $JAR -X POST $B/api-keys -H 'Content-Type: application/json' -H "X-CSRF-Token: $CSRF" -d '{"name":"${keyName}","scope":"admin"}' | sed -E 's/.*"token":"([^"]+)".*/\\1/')`] : []),
].join('\n');

const firstRun = () => readmeBlock('First run with curl').replace('http://127.0.0.1:8080', `http://127.0.0.1:${port}`);

it('runs the first-run curl examples as written', async () => {
  expect(readmeBlock('First run with curl')).toContain('B=http://127.0.0.1:8080/api/v1');
  const script = `set -euo pipefail\n${firstRun()}`;
  const { stdout } = await execFileAsync('bash', ['-c', script], { timeout: 60_000 });
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  // setup status, setup, token, /me, /users, new user, sign-in, sessions
  expect(lines).toHaveLength(8);
  expect(json(lines[0]!)).toEqual({ needs_setup: true });
  expect(json(lines[1]!)).toMatchObject({ status: 'signed_in', user: { email: 'ada@example.com', role: 'admin' } });
  expect(lines[2]).toMatch(/^hk_[A-Za-z0-9_-]{43}$/);
  expect(json(lines[3]!)).toMatchObject({ email: 'ada@example.com', role: 'admin' });
  expect((json(lines[4]!).items as unknown[]).length).toBe(1);
  expect(json(lines[5]!)).toMatchObject({ user: { name: 'Grace', role: 'editor', must_change_password: true }, temporary_password: expect.any(String) });
  expect(json(lines[6]!)).toMatchObject({ status: 'signed_in' });
  const sessions = json(lines[7]!).items as Array<{ current: boolean }>;
  expect(sessions).toHaveLength(2);
  expect(sessions.filter((s) => s.current)).toHaveLength(1);
}, 60_000);

it('runs the connections and queries examples, then the reports and runs ones, as written, after the first-run ones (only the database changed)', async () => {
  const block = readmeBlock('Connections and queries with curl');
  const db = /^DB='.*'$/m;
  expect(block).toMatch(db);
  const ours = JSON.stringify({ ...shop.connection('Shop'), password: 'reader password' });
  // The first-run block ran above in another shell: run it again on a fresh setup is impossible,
  // so sign in with the admin it made and take a new key, as a returning user would.
  const resume = signedInAgain('again');
  const reports = readmeBlock('Reports and runs with curl');
  const channels = readmeBlock('Channels and deliveries with curl');
  const peers = /^SMTP_HOST=.*\nHOOK_URL=.*$/m;
  expect(channels).toMatch(peers);
  const channelsHere = channels.replace(peers, `SMTP_HOST=127.0.0.1; SMTP_PORT=${smtp.port}\nHOOK_URL=${hook.url}/herald`);
  const files = readmeBlock('Result files and shared links with curl');
  const notifications = readmeBlock('Notifications with curl');
  const script = `set -euo pipefail\ncd "$(mktemp -d)"\n${resume}\n${block.replace(db, `DB='${ours}'`)}\n${reports}\n${channelsHere}\necho "SECRET=$SECRET"\n${files}\nls *.xlsx\n${notifications}`;
  const { stdout } = await execFileAsync('bash', ['-c', script], { timeout: 180_000 });
  const all = stdout.split('\n').filter((l) => l.trim() !== '');
  const lines = all.slice(0, 7);
  const more = all.slice(7, 15);
  const deliveries = all.slice(15, 21);
  const shared = all.slice(21, 29);
  const notes = all.slice(29);
  // test, connection id, preview, two changes, versions, restore
  expect(lines).toHaveLength(7);
  expect(json(lines[0]!)).toMatchObject({ ok: true, server_version: expect.any(String) });
  expect(lines[1]).toMatch(/^[0-9a-f-]{36}$/);
  expect(json(lines[2]!)).toMatchObject({ columns: [{ name: 'id' }, { name: 'total' }], rows: [[1, '10.50'], [3, '5.25']], row_count: 2, truncated: false });
  expect(json(lines[3]!)).toMatchObject({ current_version: 2, version: 2 });
  expect(json(lines[4]!)).toMatchObject({ current_version: 3, version: 3 });
  expect((json(lines[5]!).items as Array<{ number: number }>).map((v) => v.number)).toEqual([3, 2, 1]);
  expect(json(lines[6]!)).toMatchObject({ current_version: 4, version: 4, sql: expect.stringContaining('order by id') });

  // Reports and runs: the report, the repeated run, the run, the cancel, the slow report's runs,
  // the scheduled runs, the pause, the count of run events seen.
  expect(more).toHaveLength(8);
  const report = json(more[0]!);
  expect(report).toMatchObject({ title: 'Shipped orders', paused: false, schedule: { cron: '* * * * *', timezone: 'Europe/Berlin' } });
  expect(Date.parse(report.next_run_at as string) % 60_000).toBe(0);
  const repeated = json(more[1]!);
  const run = json(more[2]!);
  expect(run).toMatchObject({ id: repeated.id, trigger: 'manual', status: 'success', row_count: 2, condition_met: true, deliver: false });
  expect(run.sample).toEqual([[1, '10.50'], [3, '5.25']]);
  expect(['cancelled', 'running']).toContain(json(more[3]!).status); // cancelled at once (200), or stopping (202)
  const slowRuns = json(more[4]!).items as Array<{ status: string }>;
  expect(slowRuns.map((r) => r.status)).toEqual(['cancelled']);
  const scheduled = json(more[5]!).items as Array<{ status: string; trigger: string; scheduled_for: string }>;
  expect(scheduled.length).toBeGreaterThanOrEqual(1);
  expect(scheduled[scheduled.length - 1]).toMatchObject({ status: 'success', trigger: 'schedule' });
  expect(json(more[6]!)).toMatchObject({ paused: true, next_run_at: null });
  expect(Number(more[7])).toBeGreaterThanOrEqual(6); // pending, running, finished for the manual, slow and scheduled runs

  // Channels and deliveries: the webhook test, the preview, the run, the channels, retry-failed, the secret.
  expect(deliveries).toHaveLength(6);
  expect(json(deliveries[0]!)).toMatchObject({ status: 'sent', status_code: 200 });
  expect(json(deliveries[1]!)).toMatchObject({ source: 'latest_run', channel_type: 'webhook', attachment: { filename: expect.stringMatching(/^shipped-orders-.*\.csv$/) } });
  const delivered = json(deliveries[2]!);
  expect(delivered).toMatchObject({ status: 'success', deliver: true });
  const attempts = delivered.delivery_attempts as Array<{ status: string; channel_type: string; id: string }>;
  expect(attempts.map((a) => [a.channel_type, a.status])).toEqual([['email', 'sent'], ['webhook', 'sent']]);
  expect((json(deliveries[3]!).items as Array<{ name: string; health: string }>).map((c) => [c.name, c.health])).toEqual([['Ops hook', 'healthy'], ['Ops mail', 'healthy']]);
  expect(json(deliveries[4]!)).toEqual({ queued: [] });
  // What arrived: the email with the xlsx and the table, the webhook signed with the README's secret.
  const mail = smtp.messages.at(-1)!;
  expect(smtp.envelopes.at(-1)!.to).toEqual(['ops@example.com']);
  expect(mail.subject).toBe('Shipped orders: 2 orders');
  expect(mail.attachments[0]!.filename).toMatch(/\.xlsx$/);
  const secret = deliveries[5]!.replace(/^SECRET=/, '');
  const signed = hook.requests.at(-1)!;
  expect(signed.headers['webhook-id']).toBe(attempts[1]!.id);
  expect(new Webhook(secret).verify(signed.body, {
    'webhook-id': String(signed.headers['webhook-id']), 'webhook-timestamp': String(signed.headers['webhook-timestamp']), 'webhook-signature': String(signed.headers['webhook-signature']),
  })).toMatchObject({ type: 'report.delivered', run: { id: delivered.id, row_count: 2 } });

  // Result files and links: the csv (3 lines), the json through the link, the link, 410, storage, the saved xlsx.
  expect(shared.slice(0, 3).map((l) => l.replace(/\r$/, ''))).toEqual(['id,total', '1,10.50', '3,5.25']); // csv lines end in CRLF
  expect(json(shared[3]!)).toEqual({ columns: [{ name: 'id', type: 'int4' }, { name: 'total', type: 'numeric' }], rows: [[1, '10.50'], [3, '5.25']] });
  expect(json(shared[4]!)).toMatchObject({ status: 'active', download_count: 1, downloads: [expect.objectContaining({ user_agent: expect.stringMatching(/^curl/) })] });
  expect(shared[5]).toBe('410');
  expect(json(shared[6]!)).toMatchObject({ backend: 'local', retention_days: 30 });
  expect((json(shared[6]!).files as number)).toBeGreaterThanOrEqual(3);
  expect(shared[7]).toMatch(/^shipped-orders-\d{4}-\d{2}-\d{2}-\d{4}\.xlsx$/);

  // Notifications: Grace's unread ones (the broken report's failure), the one marked read, read-all.
  expect(notes).toHaveLength(3);
  const unread = json(notes[0]!);
  expect(unread).toMatchObject({ unread_count: 1, items: [{ kind: 'run.failed', title: '"Broken report" failed', body: expect.stringContaining('query.failed'), count: 1, read_at: null }] });
  expect(json(notes[1]!)).toMatchObject({ id: (unread.items as Array<{ id: string }>)[0]!.id, read_at: expect.any(String) });
  expect(json(notes[2]!)).toEqual({ marked: 0, unread_count: 0 });
}, 190_000);

it('runs the configuration-as-code examples as written: export, change a schedule in the file, plan, apply that plan', async () => {
  // Before the second-factor examples (after them, the admin signs in with a code).
  const resume = signedInAgain('config');
  const block = readmeBlock('Configuration as code');
  const script = `set -euo pipefail\ncd "$(mktemp -d)"\n${resume}\n${block}\ngrep -c "cron: '\\?0 8 \\* \\* 1-5" herald.yaml\ncurl -s -X POST $B/export -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{}' | grep -c "cron: '\\?0 8 \\* \\* 1-5"`;
  const { stdout } = await execFileAsync('bash', ['-c', script], { timeout: 60_000 });
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(5);
  expect(Number(lines[0])).toBeGreaterThanOrEqual(4); // the connection, query, channels and reports made above
  const summary = JSON.parse(`{${lines[1]!}}`).summary as Record<string, number>;
  expect(summary).toMatchObject({ create: 0, delete: 0 });
  expect(summary.update).toBeGreaterThanOrEqual(1);
  expect(lines[2]).toBe('"applied":true');
  // The file has the new schedule, and so has the instance now.
  expect(Number(lines[3])).toBe(Number(lines[4]));
  expect(Number(lines[4])).toBeGreaterThanOrEqual(1);
}, 70_000);

it('runs the system alerts examples as written: an alert channel, alerts with a heartbeat, the test call, the status', async () => {
  // Before the second-factor examples (after them, the admin signs in with a code).
  const resume = signedInAgain('alerts');
  const block = readmeBlock('System alerts and the heartbeat with curl');
  const peers = /HOOK_URL=.*\nPING_URL=.*\nFAIL_URL=.*\n/;
  expect(block).toMatch(peers);
  const seen = hook.requests.length;
  const script = `set -euo pipefail\n${resume}\n${block.replace(peers, `HOOK_URL=${hook.url}/alerts\nPING_URL=${hook.url}/ping/check-1\nFAIL_URL=${hook.url}/down/check-1\n`)}`;
  const { stdout } = await execFileAsync('bash', ['-c', script], { timeout: 60_000 });
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(3);
  expect(json(lines[0]!)).toMatchObject({ targets: [{ target: 'channel', ok: true }, { target: 'heartbeat', ok: true, status: 200 }] });
  const settings = json(lines[1]!);
  expect(settings).toMatchObject({ repeat_minutes: 60, heartbeat: { url: { configured: true }, fail_url: { configured: true }, method: 'GET', interval_seconds: 60 } });
  expect(json(lines[2]!)).toMatchObject({ items: expect.any(Array) });
  expect(lines[1]).not.toContain('check-1');
  const mine = hook.requests.slice(seen);
  expect(mine.some((r) => r.path === '/alerts' && (JSON.parse(r.body) as { type: string }).type === 'system.alert')).toBe(true);
  expect(mine.some((r) => r.method === 'GET' && r.path === '/ping/check-1')).toBe(true);
}, 70_000);

it('runs the dashboard example as written: the home page agrees with what the examples above made', async () => {
  const resume = signedInAgain('dashboard');
  const block = readmeBlock('The dashboard with curl');
  // Then the lists the dashboard sums up, read by the same shell.
  const lists = 'curl -s "$B/reports?limit=100" -H "Authorization: Bearer $TOKEN"\ncurl -s "$B/channels?limit=100" -H "Authorization: Bearer $TOKEN"';
  const { stdout } = await execFileAsync('bash', ['-c', `set -euo pipefail\n${resume}\n${block}\n${lists}`], { timeout: 30_000 });
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(3);
  const d = json(lines[0]!);
  const reports = json(lines[1]!).items as Array<{ id: string; title: string; paused: boolean; last_run: { status: string } | null }>;
  const channels = json(lines[2]!).items as Array<{ health: string }>;
  // api, scheduler and worker in one healthy process, and no open system problem (the alerts
  // example above shows none open either).
  expect(d.banner).toEqual({ level: 'ok', items: [] });
  // "Slow one" and "Broken report" (on demand) are active; "Shipped orders" was paused.
  expect(d.reports).toEqual({ active: 2, paused: 1 });
  expect(d.reports).toEqual({ active: reports.filter((r) => !r.paused).length, paused: reports.filter((r) => r.paused).length });
  const runs = d.runs_last_24h as Record<string, number>;
  expect(runs.success).toBeGreaterThanOrEqual(3); // the manual run, a scheduled one, the delivered one
  expect(runs.cancelled).toBe(1); // the slow one
  expect(runs.failed).toBe(1); // the broken one (notifications)
  const failing = reports.filter((r) => r.last_run?.status === 'failed');
  expect(failing.map((r) => r.title)).toEqual(['Broken report']);
  expect(d.failing_reports).toBe(1);
  expect(d.recent_failures).toEqual([expect.objectContaining({ report_id: failing[0]!.id, report_title: 'Broken report', status: 'failed', error_code: 'query.failed' })]);
  expect(d.next_runs).toEqual([]); // the only scheduled report is paused
  const by = (h: string) => channels.filter((c) => c.health === h).length;
  expect(d.channels).toEqual({ healthy: by('healthy'), failing: by('failing'), unknown: by('unknown') });
  expect((d.channels as { healthy: number }).healthy).toBeGreaterThanOrEqual(2); // the mail and the hook delivered
  expect(d.queue).toEqual({ pending: 0, oldest_pending_seconds: null });
}, 40_000);

it('runs the AI assistant examples as written: a schedule from a sentence with the assistant off, and the status', async () => {
  const resume = signedInAgain('assistant');
  const block = readmeBlock('AI assistant with curl');
  const script = `set -euo pipefail\n${resume}\nEDITOR=$TOKEN\n${block}`;
  const { stdout } = await execFileAsync('bash', ['-c', script], { timeout: 60_000 });
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(2);
  const proposal = json(lines[0]!);
  expect(proposal).toMatchObject({ kind: 'schedule', source: 'phrases', schedule: { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' }, description: 'At 08:00, Monday through Friday' });
  expect(proposal.next).toHaveLength(5);
  expect(json(lines[1]!)).toEqual({ available: false, provider: 'off', kinds: ['schedule'], reason: expect.any(String) });
}, 70_000);

it('runs the second-factor examples as written: enrol an authenticator app, sign out, sign in with password and code, then with a recovery code', async () => {
  const resume = signedInAgain();
  const block = readmeBlock('Second factor, passkeys and single sign-on with curl');
  const script = `set -euo pipefail\n${resume}\n${block}\ncurl -s -b $JAR $B/me`;
  // Run from the project folder, as the README says (otplib is installed there).
  const { stdout } = await execFileAsync('bash', ['-c', script], { timeout: 90_000, cwd: new URL('../..', import.meta.url).pathname });
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(5);
  const codes = json(lines[0]!).recovery_codes as string[];
  expect(codes).toHaveLength(10);
  expect(lines[1]).toBe('204');
  expect(json(lines[2]!)).toMatchObject({ status: 'signed_in', user: { email: 'ada@example.com', two_factor_enabled: true } });
  expect(json(lines[3]!)).toMatchObject({ status: 'signed_in', recovery_codes_remaining: 9 });
  expect(json(lines[4]!)).toMatchObject({ email: 'ada@example.com', two_factor_enabled: true });
}, 100_000);
