/**
 * The email channel against a real SMTP server on loopback (smtp-server), messages parsed with
 * mailparser: a report run arrives with its xlsx attachment (opened with the xlsx library to the
 * query's values), an HTML table with escaped cells and the plain-text table, the attempt's id as
 * Message-ID; a test run goes only to the caller; SMTP refusals map to permanent and transient
 * failures; a wrong login is delivery.auth_failed.
 */
import * as XLSX from 'xlsx';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { smtpPeer, type SmtpPeer } from '../support/peers.js';
import { waitForRun } from '../support/runs.js';

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;
let src: PostgresSource;
let smtp: SmtpPeer;
let reportId: string;
let channelId: string;

beforeAll(async () => {
  h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_DELIVERY_BACKOFF_MS: '10', SVC_DELIVERY_SENDS: '3' } });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table sales (id int primary key, region text not null, total numeric(12,2), sold_on date)`;
    await sql`insert into sales values (1, 'EU <b>', 10.50, '2026-11-01'), (2, 'US', 2000.25, '2026-11-02'), (3, 'APAC', null, null)`;
  });
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Shop')).expect(201)).body.id;
  smtp = await smtpPeer({ refuse: (a) => (a.startsWith('nobody@') ? 550 : a.startsWith('later@') ? 451 : undefined) });
  channelId = (await admin.post('/api/v1/channels').send({
    name: 'Mail', type: 'email', settings: { host: '127.0.0.1', port: smtp.port, tls: 'none', from: 'Herald <herald@example.com>' },
  }).expect(201)).body.id;
  const q = await editor.post('/api/v1/queries').send({ name: 'Sales', connection_id: connectionId, sql: 'select id, region, total, sold_on from sales order by id' }).expect(201);
  reportId = (await editor.post('/api/v1/reports').send({ title: 'Daily Sales', query_id: q.body.id }).expect(201)).body.id;
});
afterAll(async () => {
  await h.stop();
  await src.drop();
  await smtp.close();
});

const waitForRunOf = (id: string) => waitForRun(editor, id);

async function deliverOnce(settings: Record<string, unknown>, path = 'run') {
  const d = (await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: channelId, settings }).expect(201)).body;
  const queued = await editor.post(`/api/v1/reports/${reportId}/${path}`).send({});
  expect(queued.status).toBe(202);
  const run = await waitForRunOf(queued.body.id);
  await editor.delete(`/api/v1/reports/${reportId}/deliveries/${d.id}`).expect(204);
  return run;
}

it('sends a run with its xlsx attachment, which opens to the query\'s values', async () => {
  const before = smtp.messages.length;
  const run = await deliverOnce({ to: ['ops@example.com'], cc: ['boss@example.com'], attach: 'xlsx', inline_rows: 2, subject: '{{ report.title }}: {{ row_count }} rows' });
  expect(run.status).toBe('success');
  const attempt = run.delivery_attempts[0];
  expect(attempt).toMatchObject({ status: 'sent', status_code: 250, channel_type: 'email' });
  const mail = smtp.messages[before]!;
  expect(smtp.envelopes[before]!.to.sort()).toEqual(['boss@example.com', 'ops@example.com']);
  expect(mail.subject).toBe('Daily Sales: 3 rows');
  expect(mail.messageId).toBe(`<${attempt.id}@herald>`);
  expect(mail.from?.text).toContain('herald@example.com');
  expect(mail.html).toContain('<td style="padding:4px 8px">EU &lt;b&gt;</td>');
  expect(mail.html).not.toContain('EU <b>');
  expect(mail.text).toContain('EU <b>');
  expect(mail.text).toMatch(/… 1 more rows/);
  expect(mail.attachments).toHaveLength(1);
  const file = mail.attachments[0]!;
  expect(file.filename).toMatch(/^daily-sales-\d{4}-\d{2}-\d{2}-\d{4}\.xlsx$/);
  expect(file.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  // Herald's own xlsx writer; read back with SheetJS here (exceljs reads it in result-files.test.ts).
  const book = XLSX.read(file.content, { type: 'buffer', cellDates: true });
  const rows = XLSX.utils.sheet_to_json(book.Sheets[book.SheetNames[0]!]!, { header: 1, defval: null });
  expect(rows).toEqual([
    ['id', 'region', 'total', 'sold_on'],
    [1, 'EU <b>', 10.5, new Date('2026-11-01T00:00:00.000Z')],
    [2, 'US', 2000.25, new Date('2026-11-02T00:00:00.000Z')],
    [3, 'APAC', null, null],
  ]);
});

it('sends a test run only to the caller, never to the delivery\'s recipients', async () => {
  const before = smtp.messages.length;
  const run = await deliverOnce({ to: ['everyone@example.com'], bcc: ['audit@example.com'] }, 'test-delivery');
  expect(run).toMatchObject({ status: 'success', trigger: 'test' });
  expect(run.delivery_attempts[0]).toMatchObject({ status: 'sent' });
  expect(smtp.envelopes.slice(before).map((e) => e.to)).toEqual([['edna@example.com']]);
});

it('tests a saved channel by mailing the caller', async () => {
  const before = smtp.messages.length;
  const res = await editor.post(`/api/v1/channels/${channelId}/test`).send({});
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'sent', status_code: 250, sent_to: 'edna@example.com' });
  expect(smtp.messages[before]!.subject).toBe('Herald test message');
});

it('maps a refused mailbox to a permanent failure and a 451 to retried transient ones', async () => {
  const refused = await deliverOnce({ to: ['nobody@example.com'] });
  expect(refused).toMatchObject({ status: 'failed', error: { code: 'delivery.all_failed' } });
  expect(refused.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 1, status_code: 550, error: { code: 'delivery.rejected' } });
  const later = await deliverOnce({ to: ['later@example.com'] });
  expect(later.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 3, status_code: 451, error: { code: 'delivery.peer_error' } });
  const partial = await (async () => {
    const a = (await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: channelId, settings: { to: ['nobody@example.com'] } }).expect(201)).body;
    const run = await deliverOnce({ to: ['ok@example.com'] });
    await editor.delete(`/api/v1/reports/${reportId}/deliveries/${a.id}`).expect(204);
    return run;
  })();
  expect(partial.status).toBe('partial');
});

it('reports a refused login as delivery.auth_failed', async () => {
  const locked = await smtpPeer({ login: { user: 'herald', pass: 'right' } });
  try {
    const res = await admin.post('/api/v1/channels/test').send({
      type: 'email', settings: { host: '127.0.0.1', port: locked.port, tls: 'none', from: 'h@example.com', username: 'herald', password: 'wrong' },
    });
    expect([res.status, res.body.code]).toEqual([422, 'delivery.auth_failed']);
    expect(JSON.stringify(res.body)).not.toContain('wrong');
    const ok = await admin.post('/api/v1/channels/test').send({
      type: 'email', settings: { host: '127.0.0.1', port: locked.port, tls: 'none', from: 'h@example.com', username: 'herald', password: 'right' },
    });
    expect(ok.status).toBe(200);
    expect(locked.envelopes[0]!.to).toEqual(['ada@example.com']);
  } finally {
    await locked.close();
  }
});

it('needs at least one recipient', async () => {
  const res = await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: channelId, settings: { attach: 'csv' } });
  expect(res.status).toBe(422);
  expect(res.body.errors[0]).toMatchObject({ field: 'settings.to', code: 'validation.required' });
  const bad = await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: channelId, settings: { to: ['not an address'] } });
  expect(bad.body.errors[0]).toMatchObject({ field: 'settings.to.0', code: 'validation.format' });
});
