/**
 * Reports in the browser, against a real Herald: a report made with a schedule across a daylight
 * saving change (next runs and the note), a condition and parameter values; deliveries drawn from
 * the channel plugins' schemas (webhook, email with its recipients), their message previewed;
 * pause, resume, run now with delivery received by the webhook, test delivery; a validation
 * problem on its field, a change made meanwhile, a viewer's read-only page, axe on every page.
 */
import { mkdirSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { test, expect, signIn, checkA11y } from './support/fixtures.js';
import { ReportsPage } from './pages/ReportsPage.js';
import type { RunningHerald } from './support/herald.js';
import type { Schemas } from '../../sdk/src/index.js';
import { createPostgresSource, type PostgresSource } from '../../tests/support/user-databases.js';
import { finished, queueRun } from './support/runs-data.js';

/** Screenshots for people to look at, only when HERALD_SCREENS names a folder (outside the repo). */
const SCREENS = process.env.HERALD_SCREENS;
/** The whole page in one picture (a viewport as tall as the page, so the fixed header stays on top). */
const shot = async (page: Page, name: string) => {
  if (!SCREENS) return;
  mkdirSync(SCREENS, { recursive: true });
  const size = page.viewportSize()!;
  const height = await page.locator('html').evaluate((html) => html.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.min(Math.max(height, size.height), 4000) });
  await page.screenshot({ path: `${SCREENS}/web-reports-${name}.png` });
  await page.setViewportSize(size);
};

// Each test walks a whole page with axe more than once: three minutes leave room on a busy machine.
test.describe.configure({ timeout: 180_000 });

let src: PostgresSource;
let queryId: string;
let webhookChannel: string;

test.beforeAll(async ({ herald }) => {
  src = await createPostgresSource(async (sql) => {
    await sql`create table orders (id int primary key, status text not null, total numeric(12,2))`;
    await sql`insert into orders values (1, 'open', 10.50), (2, 'open', 99), (3, 'shipped', 5.25)`;
  });
  const connection = await herald.seed.call('createConnection', { body: src.connection('Reports spec shop') as Schemas['CreateConnection'] });
  const query = await herald.seed.call('createQuery', {
    body: {
      name: 'Orders by status', connection_id: connection.id,
      sql: 'select id, total from orders where status = {{ status }} order by id',
      parameters: [{ name: 'status', type: 'string', required: true }],
    },
  });
  queryId = query.id;
  webhookChannel = (await herald.seed.call('createChannel', { body: { name: 'Ops webhook', type: 'webhook', settings: { url: `${herald.webhook.url}/hook` } } })).id;
  await herald.seed.call('createChannel', {
    body: { name: 'Team mail', type: 'email', settings: { host: '127.0.0.1', port: herald.smtp.port, tls: 'none', from: 'herald@example.com' } },
  });
});

test.afterAll(async () => { await src?.drop(); });

/** A report made through the API, for the tests that are not about making one. */
async function seedReport(herald: Pick<RunningHerald, 'seed'>, title: string, options: { delivery?: boolean } = {}) {
  const report = await herald.seed.call('createReport', {
    body: { title, query_id: queryId, parameters: { status: 'open' }, schedule: { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' } },
  });
  if (options.delivery !== false) {
    await herald.seed.call('createDelivery', { path: { reportId: report.id }, body: { channel_id: webhookChannel, settings: { inline_rows: 5 } } });
  }
  return report;
}

test('an editor makes a report with parameter values, a schedule across a DST change and a condition', async ({ page, herald }) => {
  const editor = await herald.user('editor', 'Edda Editor');
  await signIn(page, editor);
  const reports = new ReportsPage(page);
  await reports.gotoList();
  await checkA11y(page);
  await page.getByRole('link', { name: 'New report' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New report' })).toBeVisible();

  await reports.title.fill('Open orders');
  await reports.choose('Query', 'Orders by status');
  await page.getByRole('textbox', { name: 'status' }).fill('open');
  // Quarterly at 06:00 in New York: five runs always span a change of daylight saving time.
  await reports.schedule('0 6 1 */3 *', 'America/New_York');
  await expect(page.getByText('At 06:00, on day 1 of the month, every 3 months (America/New_York)')).toBeVisible();
  await expect(reports.nextRuns.getByRole('listitem')).toHaveCount(5);
  await expect(reports.nextRuns).toContainText('GMT-5');
  await expect(reports.nextRuns).toContainText('GMT-4');
  await expect(reports.dstNote).toContainText('The clocks in America/New_York change');
  await expect(reports.dstNote).toContainText('(UTC-05:00 to UTC-04:00)');
  await reports.choose('Deliver', 'When the number of rows…');
  await reports.choose('Comparison', 'is greater than');
  await page.getByRole('textbox', { name: 'Rows' }).fill('0');
  await checkA11y(page);
  await shot(page, 'new');
  await reports.button('Create report').click();

  await expect(page.getByRole('heading', { level: 1, name: 'Open orders' })).toBeVisible();
  await expect(page).toHaveURL(/\/reports\/[0-9a-f-]{36}$/);
  const reportId = page.url().split('/').pop()!;
  expect(await herald.seed.call('getReport', { path: { reportId } })).toMatchObject({
    title: 'Open orders', query_id: queryId, parameters: { status: 'open' }, paused: false,
    schedule: { cron: '0 6 1 */3 *', timezone: 'America/New_York' }, condition: { type: 'row_count', op: 'gt', value: 0 },
  });
  await expect(page.getByText(/^Next run:/)).toBeVisible();
  await expect(reports.deliveries).toContainText('No delivery yet');
});

test('a webhook delivery with its settings, its message previewed; then pause, resume, and run now delivering to the webhook', async ({ page, herald }) => {
  const editor = await herald.user('editor');
  const report = await seedReport(herald, 'Open orders by hook', { delivery: false });
  await signIn(page, editor);
  const reports = new ReportsPage(page);
  await reports.goto(report.id, 'Open orders by hook');

  // The webhook's plugin can show a table and send links, so those fields show.
  await reports.button('Add delivery').click();
  await reports.choose('Channel', 'Ops webhook (Webhook)', { scope: reports.editor });
  await reports.editor.getByRole('textbox', { name: 'Subject' }).fill('{{ report.title }}: {{ row_count }} rows');
  await reports.editor.getByRole('textbox', { name: 'Rows in the message' }).fill('5');
  await expect(reports.editor.getByRole('switch', { name: 'Send a link to the result' })).toBeVisible();
  await reports.editor.getByRole('button', { name: 'Preview message' }).click();
  await expect(reports.preview).toContainText('Sample data');
  await expect(reports.preview.getByTestId('preview-subject')).toHaveText('Open orders by hook: 3 rows');
  await expect(reports.preview.getByRole('table', { name: 'Rows in the message' })).toContainText('region');
  await checkA11y(page);
  await shot(page, 'delivery-preview');
  await reports.editor.getByRole('button', { name: 'Save delivery' }).click();
  await expect(reports.delivery(1)).toContainText('Ops webhook');
  await expect(reports.delivery(1)).toContainText('5 rows inline');
  const [stored] = (await herald.seed.call('listDeliveries', { path: { reportId: report.id } })).items;
  expect(stored!.settings).toMatchObject({ subject: '{{ report.title }}: {{ row_count }} rows', inline_rows: 5, attach: null, link: null });

  await reports.button('Pause').click();
  await expect(page.getByText('Paused', { exact: true })).toBeVisible();
  expect((await herald.seed.call('getReport', { path: { reportId: report.id } })).paused).toBe(true);
  await reports.button('Resume').click();
  await expect(reports.button('Pause')).toBeVisible();
  await expect(page.getByText(/^Next run:/)).toBeVisible();
  expect((await herald.seed.call('getReport', { path: { reportId: report.id } })).paused).toBe(false);
  await shot(page, 'edit');

  herald.webhook.requests.length = 0;
  await reports.runNow(true);
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = page.url().split('/').pop()!;
  await expect.poll(() => herald.webhook.requests.filter((r) => r.path === '/hook').length, { timeout: 30_000 }).toBe(1);
  const sent = JSON.parse(herald.webhook.requests.find((r) => r.path === '/hook')!.body) as { subject: string };
  expect(sent.subject).toBe('Open orders by hook: 2 rows');
  expect(await herald.seed.call('getRun', { path: { runId } })).toMatchObject({ report_id: report.id, trigger: 'manual', deliver: true });
});

test('run now without delivering queues a run that sends nothing', async ({ page, herald }) => {
  const editor = await herald.user('editor');
  const report = await seedReport(herald, 'Quiet report');
  await signIn(page, editor);
  const reports = new ReportsPage(page);
  await reports.goto(report.id, 'Quiet report');
  await reports.runNow(false);
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = page.url().split('/').pop()!;
  await expect.poll(async () => (await herald.seed.call('getRun', { path: { runId } })).status, { timeout: 30_000 }).toBe('success');
  expect(await herald.seed.call('getRun', { path: { runId } })).toMatchObject({ deliver: false, delivery_attempts: [] });
});

test('a test delivery runs the report and records the webhook message without sending it', async ({ page, herald }) => {
  const editor = await herald.user('editor');
  const report = await seedReport(herald, 'Tested report');
  await signIn(page, editor);
  const reports = new ReportsPage(page);
  await reports.goto(report.id, 'Tested report');
  herald.webhook.requests.length = 0;
  await reports.button('Test delivery').click();
  await expect(page.getByRole('status').filter({ hasText: 'Test run queued.' })).toBeVisible();
  const href = await page.getByRole('link', { name: 'Open the run' }).getAttribute('href');
  const runId = href!.split('/').pop()!;
  await expect.poll(async () => (await herald.seed.call('getRun', { path: { runId } })).delivery_attempts.map((a) => a.status), { timeout: 30_000 })
    .toEqual(['preview']);
  const run = await herald.seed.call('getRun', { path: { runId } });
  expect(run.trigger).toBe('test');
  expect(herald.webhook.requests.filter((r) => r.path === '/hook')).toEqual([]);
  await checkA11y(page);
});

test('an email delivery is drawn from the plugin\'s delivery schema, previews its recipients, and deliveries reorder', async ({ page, herald }) => {
  const editor = await herald.user('editor');
  const report = await seedReport(herald, 'Mailed report');
  await signIn(page, editor);
  const reports = new ReportsPage(page);
  await reports.goto(report.id, 'Mailed report');
  await reports.button('Add delivery').click();
  await reports.choose('Channel', 'Team mail (Email)', { scope: reports.editor });
  // Without a recipient the service refuses, on the field.
  await reports.editor.getByRole('button', { name: 'Save delivery' }).click();
  const to = reports.editor.getByRole('textbox', { name: 'To' });
  await expect(to).toHaveAttribute('aria-invalid', 'true');
  await expect(reports.editor).toContainText('at least one recipient');
  await to.fill('ops@example.com');
  await to.press('Enter');
  await reports.choose('Attach the result', 'XLSX', { scope: reports.editor });
  await reports.editor.getByRole('button', { name: 'Preview message' }).click();
  await expect(reports.preview).toContainText('To: ops@example.com');
  await expect(reports.preview).toContainText('Attachment:');
  await reports.editor.getByRole('button', { name: 'Save delivery' }).click();
  await expect(reports.delivery(2)).toContainText('Team mail');
  await expect(reports.delivery(2)).toContainText('XLSX attached');
  const stored = (await herald.seed.call('listDeliveries', { path: { reportId: report.id } })).items;
  expect(stored.map((d) => [d.position, d.channel_type, (d.settings as { to?: string[] }).to])).toEqual([[1, 'webhook', undefined], [2, 'email', ['ops@example.com']]]);

  await reports.button('Move delivery 2 up').click();
  await expect(reports.delivery(1)).toContainText('Team mail');
  await expect(reports.delivery(2)).toContainText('Ops webhook');
  await reports.button('Remove delivery 2').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
  await expect(reports.deliveries.getByRole('listitem')).toHaveCount(1);
  await checkA11y(page);
});

test('a validation problem lands on its field, and a change made meanwhile is shown with a reload', async ({ page, herald }) => {
  const editor = await herald.user('editor');
  const report = await seedReport(herald, 'Contested report');
  await signIn(page, editor);
  const reports = new ReportsPage(page);
  await reports.goto(report.id, 'Contested report');
  // The schedule's preview says what is wrong with a cron while it is typed.
  await reports.cron.fill('61 * * * *');
  await expect(reports.cron).toHaveAttribute('aria-invalid', 'true');
  await reports.cron.fill('0 9 * * 1-5');
  await expect(reports.cron).not.toHaveAttribute('aria-invalid', 'true');
  // The service refuses a blank title, on the title.
  await reports.title.fill('   ');
  await reports.button('Save').click();
  await expect(reports.title).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('alert')).toContainText('Some fields need attention.');
  await checkA11y(page);

  await reports.title.fill('Mine');
  const current = await herald.seed.call('getReport', { path: { reportId: report.id } });
  await herald.seed.call('updateReport', { path: { reportId: report.id }, body: { version: current.version, title: 'Theirs' } });
  await reports.button('Save').click();
  await expect(page.getByRole('alert')).toContainText('Someone changed this meanwhile.');
  await reports.button('Reload').click();
  await expect(reports.title).toHaveValue('Theirs');
  await reports.title.fill('Mine after all');
  await reports.button('Save').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Mine after all' })).toBeVisible();
});

test('a viewer sees reports read-only: no new, save, run, pause, delete or delivery button', async ({ page, herald }) => {
  const viewer = await herald.user('viewer');
  await seedReport(herald, 'Watched report');
  await signIn(page, viewer);
  const reports = new ReportsPage(page);
  await reports.gotoList();
  await expect(page.getByRole('link', { name: 'Watched report' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'New report' })).toHaveCount(0);
  await shot(page, 'list');
  await page.getByRole('link', { name: 'Watched report' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Watched report' })).toBeVisible();
  await expect(reports.title).toBeDisabled();
  await expect(reports.delivery(1)).toContainText('Ops webhook');
  await expect(reports.nextRuns.getByRole('listitem')).toHaveCount(5);
  for (const name of ['Save', 'Run now', 'Pause', 'Delete', 'Add delivery', 'Test delivery', 'Edit delivery 1']) {
    await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
  }
  await checkA11y(page);
});

test('an editor deletes a report after confirming', async ({ page, herald }) => {
  const editor = await herald.user('editor');
  const report = await seedReport(herald, 'Doomed report');
  await signIn(page, editor);
  const reports = new ReportsPage(page);
  await reports.goto(report.id, 'Doomed report');
  await reports.button('Delete').click();
  const dialog = page.getByRole('dialog', { name: 'Delete “Doomed report”?' });
  await expect(dialog).toBeVisible();
  await checkA11y(page);
  await dialog.getByRole('button', { name: 'Delete report' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Reports' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Doomed report' })).toHaveCount(0);
  await expect(herald.seed.call('getReport', { path: { reportId: report.id } })).rejects.toMatchObject({ status: 404 });
});

test('the condition on a value offers the columns of the report\'s last run', async ({ page, herald }) => {
  const report = await seedReport(herald, 'Orders with a known shape', { delivery: false });
  expect(await finished(herald.seed, await queueRun(herald.seed, report.id, false))).toBe('success');
  await signIn(page, await herald.user('editor'));
  await page.goto(`/reports/${report.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Orders with a known shape' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Deliver' }).click();
  await page.getByRole('option', { name: 'When a value of the first row…' }).click();
  const column = page.getByRole('textbox', { name: 'Column' });
  await expect(page.getByText('those of the last run are offered')).toBeVisible();
  await column.click();
  await expect(page.getByRole('option', { name: 'id', exact: true })).toBeVisible();
  await page.getByRole('option', { name: 'total', exact: true }).click();
  await expect(column).toHaveValue('total');
  await checkA11y(page);
});

test('a German user reads the schedule, its next runs and the daylight saving note in German', async ({ page, herald }) => {
  const editor = await herald.user('editor');
  const report = await herald.seed.call('createReport', {
    body: { title: 'Quartalsbericht', query_id: queryId, parameters: { status: 'open' }, schedule: { cron: '0 6 1 */3 *', timezone: 'Europe/Berlin' } },
  });
  await signIn(page, editor);
  const me = await (await page.request.get('/api/v1/me')).json() as { version: number };
  const csrf = (await page.context().cookies()).find((c) => c.name === 'svc_csrf')!.value;
  const res = await page.request.patch('/api/v1/me', { data: { version: me.version, preferences: { locale: 'de' } }, headers: { 'X-CSRF-Token': csrf } });
  expect(res.status(), await res.text()).toBe(200);
  await page.goto(`/reports/${report.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Quartalsbericht' })).toBeVisible();
  await expect(page.getByText('Um 06:00, an Tag 1 des Monats, alle 3 Monate (Europe/Berlin)')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Nächste Läufe' }).getByRole('listitem')).toHaveCount(5);
  await expect(page.getByRole('note').filter({ hasText: 'Sommerzeit' })).toContainText('Die Uhren in Europe/Berlin werden');
  await expect(page.getByRole('button', { name: 'Jetzt ausführen' })).toBeVisible();
});
