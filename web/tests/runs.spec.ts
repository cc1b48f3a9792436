/**
 * Runs and shared links in the browser against a real Herald: a run watched live from running to
 * succeeded with its webhook delivery received, a failed delivery retried from the page, a running
 * run cancelled, the result downloaded as CSV and XLSX, a shared link made, fetched (its log shows
 * it) and revoked, the list's filters in the address and its infinite scroll, a session that
 * ends under an open page, and what did not change answered 304 when a live event asks again.
 */
import { readFile } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import { screen } from './support/screens.js';
import { test, expect, signIn, checkA11y, ADMIN } from './support/fixtures.js';
import { arrangeRuns, finished, queueRun, BROKEN_SQL, GATED_SQL, ITEMS_SQL, type RunsData } from './support/runs-data.js';
import { RunPage } from './pages/RunPage.js';
import { RunsPage } from './pages/RunsPage.js';
import { LinksPage } from './pages/LinksPage.js';

let data: RunsData;
let gated: string;
let items: string;

test.beforeAll(async ({ herald }) => {
  data = await arrangeRuns(herald, 'Runs spec');
  gated = await data.report('Gated items', GATED_SQL);
  items = await data.report('Daily items', ITEMS_SQL);
});
test.afterAll(async () => { await data?.drop(); });

const requestsFor = (webhook: { requests: Array<{ body: string }> }, runId: string) =>
  webhook.requests.filter((r) => r.body.includes(runId));

test('asked again after a live event, what did not change comes back 304 and the page shows it as before', async ({ page, herald }) => {
  await signIn(page);
  const other = await data.report('Unrelated items', ITEMS_SQL, { deliver: false });
  const runId = await queueRun(herald.seed, items, false);
  expect(await finished(herald.seed, runId)).toBe('success');
  const run = new RunPage(page);
  await run.open(runId);
  await expect(run.status).toContainText('Succeeded');
  await expect(page.getByRole('heading', { level: 1, name: /Run of Daily items/ })).toBeVisible();
  // Another report's run: its events have the page ask again for this run's report (its title),
  // which did not change: with the ETag it was answered with, and answered 304 with no body.
  const again = page.waitForResponse((r) => r.url().endsWith(`/api/v1/reports/${items}`) && r.request().headers()['if-none-match'] !== undefined);
  expect(await finished(herald.seed, await queueRun(herald.seed, other, false))).toBe('success');
  const answer = await again;
  expect(answer.status()).toBe(304);
  await expect(page.getByRole('heading', { level: 1, name: /Run of Daily items/ })).toBeVisible();
  await expect(run.status).toContainText('Succeeded');
  await expect(run.section('Sample of the result')).toContainText('The first 20 of 30 rows.');
});

test('a run is watched live from running to succeeded, its webhook delivery received and shown sent', async ({ page, herald }) => {
  await signIn(page);
  const gate = await data.lockGate();
  const runId = await queueRun(herald.seed, gated);
  const run = new RunPage(page);
  try {
    await run.open(runId);
    await expect(page.getByRole('heading', { level: 1, name: 'Run of Gated items' })).toBeVisible();
    await expect(run.status).toContainText(/Pending|Running/);
    await expect(run.section('Deliveries')).toContainText('The deliveries start once the result file is made.');
    expect(requestsFor(herald.webhook, runId)).toHaveLength(0);
  } finally {
    await gate.release();
  }
  // Live: no reload between the two.
  await expect(run.status).toContainText('Succeeded');
  await expect(run.step('Query')).toContainText('Succeeded');
  await expect(run.step('Query')).toContainText('30 rows');
  await expect(run.step('Delivery')).toContainText('sent: 1');
  await expect(run.section('Condition')).toContainText('No condition');
  await expect(run.section('Sample of the result')).toContainText('The first 20 of 30 rows.');
  await expect(run.section('Sample of the result').getByRole('cell', { name: 'item 20', exact: true })).toBeVisible();
  const attempt = run.attempt(data.channelName);
  await expect(attempt).toContainText('Sent');
  await expect(attempt).toContainText('Requests: 1');
  expect(requestsFor(herald.webhook, runId)).toHaveLength(1);
  const history = await run.history(data.channelName);
  await expect(history.getByRole('row')).toHaveCount(2);
  await expect(history).toContainText('200');
  await checkA11y(page);
  await screen(page, 'web-runs-run');
});

test('a failing delivery is shown failed with its error, and its retry succeeds', async ({ page, herald }) => {
  await signIn(page);
  // One 500 with a Retry-After beyond the quick retries: the attempt fails now, its automatic retry is an hour away.
  herald.webhook.script.push({ status: 500, headers: { 'Retry-After': '3600' }, body: 'receiver down' });
  const runId = await queueRun(herald.seed, items);
  expect(await finished(herald.seed, runId)).toBe('failed');
  const run = new RunPage(page);
  await run.open(runId);
  await expect(run.status).toContainText('Failed');
  await expect(page.getByText('delivery.all_failed').first()).toBeVisible();
  const attempt = run.attempt(data.channelName);
  await expect(attempt).toContainText('Failed');
  await expect(attempt).toContainText('HTTP 500');
  await expect(attempt).toContainText('Retried automatically at');
  await checkA11y(page);
  await attempt.getByRole('button', { name: `Retry the delivery to ${data.channelName}` }).click();
  await expect(attempt).toContainText('Sent');
  await expect(run.status).toContainText('Succeeded');
  await expect(attempt.getByRole('button', { name: /^Retry/ })).toHaveCount(0);
  const history = await run.history(data.channelName);
  await expect(history.getByRole('row')).toHaveCount(3);
  await expect(history.getByRole('row').nth(1)).toContainText('500');
  await expect(history.getByRole('row').nth(2)).toContainText('200');
  // The receiver saw both requests, under the same webhook-id.
  const seen = requestsFor(herald.webhook, runId) as Array<{ body: string; headers: Record<string, unknown> }>;
  expect(seen).toHaveLength(2);
  expect(seen[0]!.headers['webhook-id']).toBe(seen[1]!.headers['webhook-id']);
});

test('a viewer sees a run, its attempts and downloads, and none of the buttons that change it', async ({ page, herald }) => {
  herald.webhook.script.push({ status: 500, headers: { 'Retry-After': '3600' }, body: 'receiver down' });
  const runId = await queueRun(herald.seed, items);
  expect(await finished(herald.seed, runId)).toBe('failed');
  await signIn(page, await herald.user('viewer', 'Vic Viewer'));
  const run = new RunPage(page);
  await run.open(runId);
  await expect(run.status).toContainText('Failed');
  await expect(run.attempt(data.channelName)).toContainText('HTTP 500');
  await expect(page.getByRole('link', { name: 'Download CSV' })).toBeVisible();
  await expect(run.section('Shared links')).toContainText('This run’s result is not shared.');
  await expect(page.getByRole('button', { name: /^Retry/ })).toHaveCount(0);
  await expect(page.getByRole('form', { name: 'Share a link' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
});

test('a running run is cancelled from its page', async ({ page, herald }) => {
  await signIn(page);
  const gate = await data.lockGate();
  try {
    const runId = await queueRun(herald.seed, gated);
    const run = new RunPage(page);
    await run.open(runId);
    await expect(run.status).toContainText(/Pending|Running/);
    await page.getByRole('button', { name: 'Cancel run' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this run?' });
    await checkA11y(page);
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await expect(dialog).toBeHidden();
    await expect(run.status).toContainText('Cancelled');
    await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
    await expect(run.section('Result file')).toContainText('This run has no result file');
  } finally {
    await gate.release();
  }
});

test('the result downloads as CSV and XLSX with the run\'s rows', async ({ page, herald }) => {
  await signIn(page);
  const runId = await queueRun(herald.seed, items, false);
  expect(await finished(herald.seed, runId)).toBe('success');
  const run = new RunPage(page);
  await run.open(runId);
  await expect(run.section('Deliveries')).toContainText('This run was made without delivering.');

  const csv = await run.download('CSV');
  expect(csv.name).toMatch(/^daily-items.*\.csv$/i);
  const lines = (await readFile(csv.path, 'utf8')).trim().split(/\r?\n/);
  expect(lines[0]).toBe('n,label');
  expect(lines).toHaveLength(31);
  expect(lines[30]).toBe('30,item 30');

  const xlsx = await run.download('XLSX');
  expect(xlsx.name).toMatch(/\.xlsx$/);
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(xlsx.path);
  const sheet = book.worksheets[0]!;
  expect(sheet.getRow(1).values).toEqual([undefined, 'n', 'label']);
  expect(sheet.rowCount).toBe(31);
  expect(sheet.getRow(31).values).toEqual([undefined, 30, 'item 30']);
});

test('a shared link is made on the run\'s page, fetched by someone else, and its download log shows it', async ({ page, herald, browser }) => {
  await signIn(page);
  const runId = await queueRun(herald.seed, items, false);
  expect(await finished(herald.seed, runId)).toBe('success');
  const run = new RunPage(page);
  await run.open(runId);
  const url = await run.share('CSV', 3);
  expect(url).toMatch(new RegExp(`^${herald.url}/r/`));
  const link = run.link('Daily items');
  await expect(link).toContainText('Active');
  await expect(link).toContainText('Downloads: 0');

  // Someone else, without a session, fetches it.
  const stranger = await browser.newContext({ userAgent: 'LinkFetcher/1.0 (browser test)' });
  const res = await stranger.request.get(url);
  expect(res.status()).toBe(200);
  expect((await res.text()).split(/\r?\n/)[0]).toBe('n,label');

  await link.getByRole('button', { name: 'Download log' }).click();
  const log = link.getByRole('table', { name: 'Downloads of the link to Daily items' });
  await expect(log.getByRole('row')).toHaveCount(2);
  await expect(log).toContainText('LinkFetcher/1.0 (browser test)');
  await expect(link).toContainText('Downloads: 1 (the latest 50 below)');

  const links = new LinksPage(page);
  await links.open('?status=active');
  await expect(page.getByRole('heading', { level: 1, name: 'Shared links' })).toBeVisible();
  const listed = links.link('Daily items').first();
  await expect(listed).toContainText('Downloads: 1');
  await checkA11y(page);
  await screen(page, 'web-runs-links');
  await stranger.close();
});

test('a shared link is revoked from the run\'s page and stops working at once', async ({ page, herald, request }) => {
  const runId = await queueRun(herald.seed, items, false);
  expect(await finished(herald.seed, runId)).toBe('success');
  const made = await herald.seed.call('createLink', { body: { run_id: runId, format: 'json', expires_in_days: 1 } });
  expect((await request.get(made.url)).status()).toBe(200);
  await signIn(page);
  const run = new RunPage(page);
  await run.open(runId);
  const link = run.link('Daily items');
  await expect(link).toContainText('JSON');
  await link.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('dialog', { name: 'Revoke this link?' }).getByRole('button', { name: 'Revoke link' }).click();
  await expect(link).toContainText('Revoked');
  await expect(link.getByRole('button', { name: 'Revoke' })).toHaveCount(0);
  expect((await request.get(made.url)).status()).toBe(410);
  const links = new LinksPage(page);
  await links.open('?status=revoked');
  await expect(links.link('Daily items').first()).toContainText('Revoked');
});

test('the runs list loads the next page as it scrolls to its end', async ({ page, herald }) => {
  const bulk = await data.report('Bulk items', ITEMS_SQL, { deliver: false });
  for (let i = 0; i < 3; i += 1) await Promise.all(Array.from({ length: 10 }, () => queueRun(herald.seed, bulk, false)));
  await signIn(page);
  const runs = new RunsPage(page);
  await runs.open(`?report_id=${bulk}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Report' })).toHaveValue('Bulk items');
  await expect(runs.rows).toHaveCount(25);
  await screen(page, 'web-runs-runs');
  await runs.scrollToEnd();
  await expect(runs.rows).toHaveCount(30);
  await expect(page.getByText('All 30 runs shown.')).toBeVisible();
  await checkA11y(page);
});

test('the runs list keeps its filters in the address, and a row leads to its run', async ({ page, herald }) => {
  const broken = await data.report('Broken items', BROKEN_SQL, { deliver: false });
  const failed = await queueRun(herald.seed, broken, false);
  expect(await finished(herald.seed, failed)).toBe('failed');
  await signIn(page);
  const runs = new RunsPage(page);
  await runs.open();
  await runs.filter('Report', 'Broken items');
  await runs.filter('Status', 'Failed');
  await expect(page).toHaveURL(new RegExp(`/runs\\?status=failed&report_id=${broken}$`));
  await expect(runs.rows).toHaveCount(1);
  await expect(runs.rows.first()).toContainText('Broken items');
  await expect(runs.rows.first()).toContainText('Failed');
  // The filters survive a reload (and so a link to them).
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Status' })).toHaveValue('Failed');
  await expect(page.getByRole('textbox', { name: 'Report' })).toHaveValue('Broken items');
  await expect(runs.rows).toHaveCount(1);
  await runs.filter('Trigger', 'Test delivery');
  await expect(page).toHaveURL(/trigger=test/);
  await expect(page.getByText('No run matches these filters.')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await runs.open(`?report_id=${broken}`);
  await runs.rows.first().getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Run of Broken items' })).toBeVisible();
  await expect(page.getByText('query.failed').first()).toBeVisible();
});

test('a session that ends under an open page leads to sign-in, then back to the page asked for', async ({ page, context, herald }) => {
  await signIn(page);
  const runs = new RunsPage(page);
  await runs.open();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await context.clearCookies();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shared links' }).click();
  await expect(page).toHaveURL(/\/sign-in\?next=%2Flinks/);
  await expect(page.getByText('Your session ended.')).toBeVisible();
  await checkA11y(page);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(`${herald.url}/links`);
  await expect(page.getByRole('heading', { level: 1, name: 'Shared links' })).toBeVisible();
});
