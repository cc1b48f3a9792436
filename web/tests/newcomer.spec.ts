/**
 * A newcomer's first journey, through the browser alone, on a FRESH Herald: the setup wizard, then
 * the first steps the dashboard lists: a connection (tested before it is saved), a query on it
 * (previewed), a webhook channel (its test message received), a report with that query, a
 * schedule and a delivery through the channel, run now; the run's page shows success and the
 * delivery sent, the receiver got the run, the result downloads. Each step follows the link the
 * page before offers, as a person would. Around it, what the admin meets while setting up: an
 * editor added (who sees the steps that are hers), alert settings (no "last changed" before a
 * save), time zones (the first admin's from the browser at setup; an added member's UTC until the
 * profile takes the browser's), an email channel (where its
 * test goes). The API is only read, to check. Serial steps share one page (one signed-in browser),
 * each well inside its own timeout; axe on every new page; no Content-Security-Policy violation.
 */
import { readFile } from 'node:fs/promises';
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { attachHeraldLog, checkA11y } from './support/fixtures.js';
import { startHerald, type RunningHerald } from './support/herald.js';
import { screen } from './support/screens.js';
import { ChannelsPage } from './pages/ChannelsPage.js';
import { ConnectionsPage } from './pages/ConnectionsPage.js';
import { ProfilePage } from './pages/ProfilePage.js';
import { QueriesPage } from './pages/QueriesPage.js';
import { ReportsPage } from './pages/ReportsPage.js';
import { RunPage } from './pages/RunPage.js';
import { SettingsPage } from './pages/SettingsPage.js';
import { SignInPage } from './pages/SignInPage.js';
import { UsersPage } from './pages/UsersPage.js';
import { createPostgresSource, type PostgresSource } from '../../tests/support/user-databases.js';

// The plain Playwright test: the shared `herald` fixture is not wanted here, only a fresh one.
const test = base;
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const NEWCOMER = { name: 'Nora Newcomer', email: 'nora@example.com', password: 'a good long password' };

let herald: RunningHerald;
let src: PostgresSource;
let context: BrowserContext;
let page: Page;
let runId = '';
/** What the page's Content-Security-Policy blocked (a dialog's scroll lock did, before its style carried the nonce). */
const cspErrors: string[] = [];

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  [herald, src] = await Promise.all([
    // At info: a failed step's attached log then shows the runs and deliveries it went through.
    startHerald({ fresh: true, env: { SVC_LOG_LEVEL: 'info' } }),
    createPostgresSource(async (sql) => {
      await sql`create table orders (id int primary key, status text not null, total numeric(12,2))`;
      await sql`insert into orders values (1, 'open', 10.50), (2, 'open', 99), (3, 'shipped', 5.25)`;
    }),
  ]);
  context = await browser.newContext({ baseURL: herald.url, locale: 'en-GB', timezoneId: 'Europe/Berlin' });
  page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error' && m.text().includes('Content Security Policy')) cspErrors.push(m.text()); });
});

// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture's dependencies from this pattern
test.afterEach(async ({}, testInfo) => { await attachHeraldLog(herald, testInfo); });

test.afterAll(async () => {
  await context?.close();
  await src?.drop();
  await herald?.stop();
});

/** The webhook receiver's requests to the newcomer's path. */
const received = () => herald.webhook.requests.filter((r) => r.path === '/newcomer');

test('the setup wizard makes the first admin; the empty dashboard lists the first steps', async () => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/setup$/);
  await expect(page.getByRole('heading', { name: 'Set up Herald' })).toBeVisible();
  await checkA11y(page);
  await page.getByLabel('Name').fill(NEWCOMER.name);
  await page.getByLabel('Email').fill(NEWCOMER.email);
  await page.getByLabel('Password').fill(NEWCOMER.password);
  await page.getByRole('button', { name: 'Create administrator' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  const start = page.getByRole('region', { name: 'Getting started' });
  await expect(start).toContainText('No report yet.');
  // In the order a report needs them, each a link for an admin.
  await expect(start.getByRole('listitem')).toHaveText([/^Add a connection/, /^Write a query/, /^Add a channel/, /^Make a report/]);
  for (const name of ['Add a connection', 'Write a query', 'Add a channel', 'Make a report']) {
    await expect(start.getByRole('link', { name })).toBeVisible();
  }
  await checkA11y(page);
  await screen(page, 'web-newcomer-dashboard');
});

test('an editor the admin adds sees the first steps an editor takes, and who does the rest', async ({ browser }) => {
  // The admin adds a colleague on the Users page; the temporary password is shown once.
  const editor = await browser.newContext({ baseURL: herald.url, locale: 'en-GB', timezoneId: 'Europe/Berlin' });
  try {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    const users = new UsersPage(page);
    const temporary = await users.add({ name: 'Grace Editor', email: 'grace@example.com', role: 'Editor' });
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(users.row('Grace Editor')).toContainText('Must change password');
    expect(cspErrors).toEqual([]);

    // Grace signs in on her own machine, chooses her password, and lands on the dashboard.
    const gracePage = await editor.newPage();
    const signInPage = new SignInPage(gracePage);
    await signInPage.open();
    await signInPage.withPassword('grace@example.com', temporary);
    await expect(gracePage.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await gracePage.getByLabel('Temporary password').fill(temporary);
    await gracePage.getByRole('textbox', { name: 'New password', exact: true }).fill('grace has her own password');
    await gracePage.getByLabel('Repeat the new password').fill('grace has her own password');
    await gracePage.getByRole('button', { name: 'Save and continue' }).click();
    await expect(gracePage.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    const start = gracePage.getByRole('region', { name: 'Getting started' });
    // Queries and reports are hers to make; connections and channels an admin's.
    await expect(start.getByRole('link')).toHaveText(['Write a query', 'Make a report']);
    await expect(start.getByRole('listitem').nth(0)).toContainText('(An administrator does this.)');
    await expect(start.getByRole('listitem').nth(2)).toContainText('(An administrator does this.)');
    await checkA11y(gracePage);

    // An account an admin made starts in UTC: her profile offers this browser's zone.
    await gracePage.getByRole('button', { name: 'Account of Grace Editor' }).click();
    await gracePage.getByRole('menuitem', { name: 'Profile' }).click();
    const profile = new ProfilePage(gracePage);
    await expect(profile.account.getByRole('textbox', { name: 'Time zone' })).toHaveValue('UTC');
    await profile.account.getByRole('button', { name: 'Use this browser’s time zone (Europe/Berlin)' }).click();
    await expect(profile.account.getByRole('textbox', { name: 'Time zone' })).toHaveValue('Europe/Berlin');
    await checkA11y(gracePage);
    await profile.account.getByRole('button', { name: 'Save' }).click();
    await expect(gracePage.getByText('Your profile is saved.')).toBeVisible();
    await expect(profile.account.getByRole('button', { name: /^Use this browser’s time zone/ })).toHaveCount(0);
    const grace = await (await gracePage.request.get('/api/v1/me')).json() as { preferences: { timezone: string } };
    expect(grace.preferences.timezone).toBe('Europe/Berlin');
  } finally {
    await editor.close();
  }
  // The admin goes on from the dashboard.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
  await expect(page.getByRole('region', { name: 'Getting started' })).toBeVisible();
});

test('a connection from the first step, tested before it is saved', async () => {
  await page.getByRole('region', { name: 'Getting started' }).getByRole('link', { name: 'Add a connection' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New connection' })).toBeVisible();
  const connections = new ConnectionsPage(page);
  await connections.choose('Type', 'PostgreSQL');
  await connections.fillPostgres({ name: 'Shop', host: src.host, port: src.port, database: src.database, username: src.username });
  await checkA11y(page);
  await connections.button('Test connection').click();
  await expect(connections.testOk).toContainText('PostgreSQL');
  await connections.button('Create connection').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Shop' })).toBeVisible();
  await expect(page).toHaveURL(/\/connections\/[0-9a-f-]{36}$/);
  await checkA11y(page);
});

test('a query on that connection, from its page, previewed then saved', async () => {
  const connectionId = page.url().split('/').pop()!;
  await page.getByRole('link', { name: 'New query on it' }).click();
  await expect(page).toHaveURL(`${herald.url}/queries/new?connection_id=${connectionId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'New query' })).toBeVisible();
  const queries = new QueriesPage(page);
  await expect(page.getByRole('textbox', { name: 'Connection', exact: true })).toHaveValue(/^Shop/);
  await queries.name.fill('Open orders');
  await queries.replaceSql("select id, total from orders where status = 'open' order by id");
  // The editor's completion list stays open after typing, as for a person: closed with Escape.
  await page.keyboard.press('Escape');
  await expect(page.getByRole('listbox')).toHaveCount(0);
  await page.getByRole('button', { name: 'Run preview' }).click();
  await expect(page.getByText(/^2 rows in \d+ ms$/)).toBeVisible();
  await expect(queries.result).toContainText('10.50');
  await expect(queries.result).toContainText('99.00');
  await checkA11y(page);
  await queries.save.click();
  await expect(page.getByRole('heading', { level: 1, name: 'Open orders' })).toBeVisible();
  await expect(page).toHaveURL(/\/queries\/[0-9a-f-]{36}$/);
});

test('a webhook channel, its test message received before it is saved', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Channels' })).toBeVisible();
  await checkA11y(page);
  await page.getByRole('link', { name: 'Add channel' }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: 'New channel' })).toBeVisible();
  const channels = new ChannelsPage(page);
  await channels.field('Name').fill('Newcomer hook');
  await channels.choose('Type', 'Webhook', channels.form);
  await channels.field('URL').fill(`${herald.webhook.url}/newcomer`);
  await checkA11y(page);
  await channels.button('Send test message').click();
  await expect(channels.testOutcome()).toContainText('The receiver accepted the test message');
  expect(received()).toHaveLength(1);
  expect(received()[0]!.body).toContain('Herald test message');
  await channels.button('Create channel').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Newcomer hook' })).toBeVisible();
  await checkA11y(page);
});

test('a report from the query page, with a schedule and a delivery through the channel', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queries' }).click();
  await page.getByRole('link', { name: 'Open orders', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Open orders' })).toBeVisible();
  await page.getByRole('link', { name: 'New report with it' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New report' })).toBeVisible();
  const reports = new ReportsPage(page);
  await expect(page.getByRole('textbox', { name: 'Query', exact: true })).toHaveValue('Open orders');
  await reports.title.fill('Open orders daily');
  await reports.cron.fill('0 7 * * 1-5');
  // The schedule's zone starts as the user's: Berlin, which the setup wizard took from the browser.
  await expect(page.getByRole('textbox', { name: 'Time zone' })).toHaveValue('Europe/Berlin');
  await expect(page.getByText('At 07:00, Monday through Friday (Europe/Berlin)')).toBeVisible();
  await expect(reports.nextRuns.getByRole('listitem')).toHaveCount(5);
  await checkA11y(page);
  await reports.button('Create report').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Open orders daily' })).toBeVisible();
  await expect(page.getByText(/^Next run:/)).toBeVisible();

  await reports.button('Add delivery').click();
  await reports.choose('Channel', 'Newcomer hook (Webhook)', { scope: reports.editor });
  await reports.choose('Attach the result', 'CSV', { scope: reports.editor });
  await checkA11y(page);
  await reports.editor.getByRole('button', { name: 'Save delivery' }).click();
  await expect(reports.delivery(1)).toContainText('Newcomer hook');
  await checkA11y(page);
});

test('run now: the run page shows success and the delivery sent; the receiver got the run', async () => {
  const reports = new ReportsPage(page);
  await reports.runNow(true);
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  runId = page.url().split('/').pop()!;
  const run = new RunPage(page);
  await expect(run.status).toContainText('Succeeded', { timeout: 60_000 });
  await expect(run.step('Delivery')).toContainText('Succeeded');
  await expect(run.attempt('Newcomer hook')).toContainText('Sent');
  await expect(run.section('Sample of the result')).toContainText('99.00');
  await checkA11y(page);
  await screen(page, 'web-newcomer-run');

  await expect.poll(() => received().filter((r) => r.body.includes(runId)).length, { timeout: 30_000 }).toBe(1);
  const sent = JSON.parse(received().find((r) => r.body.includes(runId))!.body) as {
    report: { title: string }; run: { id: string; status: string; row_count: number }; attachment: { filename: string; content_base64: string };
  };
  expect(sent.report.title).toBe('Open orders daily');
  expect(sent.run).toMatchObject({ id: runId, status: 'success', row_count: 2 });
  expect(sent.attachment.filename).toMatch(/\.csv$/);
  expect(Buffer.from(sent.attachment.content_base64, 'base64').toString('utf8')).toContain('2,99.00');

  // The API agrees (read with the browser's own session).
  const stored = await page.request.get(`/api/v1/runs/${runId}`);
  expect(stored.status()).toBe(200);
  expect(await stored.json()).toMatchObject({ status: 'success', trigger: 'manual', deliver: true });
});

test('the result downloads as CSV from the run page', async () => {
  const run = new RunPage(page);
  const file = await run.download('CSV');
  expect(file.name).toMatch(/^open-orders-daily-.*\.csv$/);
  const text = await readFile(file.path, 'utf8');
  expect(text.split(/\r?\n/).filter(Boolean)).toEqual(['id,total', '1,10.50', '2,99.00']);
});

test('settings never saved say nothing of a last change; once saved, when (alerts through the new channel)', async () => {
  const settings = new SettingsPage(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await settings.tab('Alerts');
  await expect(settings.heading('System alerts and heartbeat')).toBeVisible();
  await expect(page.getByText(/^Last changed/)).toHaveCount(0);
  await settings.choose('Alert channels', 'Newcomer hook');
  await page.keyboard.press('Escape');
  await settings.save();
  await expect(settings.saved()).toBeVisible();
  await expect(page.getByText(/^Last changed/)).toContainText(new Date().getFullYear().toString());
  await checkA11y(page);
});

test('the first admin reads times in this browser’s zone and language from the start (the setup wizard took them)', async () => {
  await page.getByRole('button', { name: `Account of ${NEWCOMER.name}` }).click();
  await page.getByRole('menuitem', { name: 'Profile' }).click();
  const profile = new ProfilePage(page);
  await expect(profile.account.getByRole('textbox', { name: 'Time zone' })).toHaveValue('Europe/Berlin');
  await expect(profile.account.getByRole('button', { name: /^Use this browser’s time zone/ })).toHaveCount(0);
  await checkA11y(page);
  const me = await (await page.request.get('/api/v1/me')).json() as { preferences: { timezone: string; locale: string } };
  expect(me.preferences).toMatchObject({ timezone: 'Europe/Berlin', locale: 'en-GB' });

  // The run's times read in Berlin's time, in the user's language (en-GB), as the Time component does.
  const run = await (await page.request.get(`/api/v1/runs/${runId}`)).json() as { finished_at: string };
  await page.goto(`/runs/${runId}`);
  const berlin = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', dateStyle: 'medium', timeStyle: 'short' }).format(new Date(run.finished_at));
  await expect(page.locator('time').filter({ hasText: berlin }).first()).toBeVisible();
});

test('an email channel: the form says where its test goes, and the test arrives there', async () => {
  const channels = new ChannelsPage(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels' }).click();
  await page.getByRole('link', { name: 'Add channel' }).first().click();
  await channels.field('Name').fill('Team mail');
  await channels.choose('Type', 'Email', channels.form);
  await channels.field('SMTP host').fill('127.0.0.1');
  await channels.form.getByRole('textbox', { name: 'Port' }).fill(String(herald.smtp.port));
  await channels.choose('TLS', 'none', channels.form);
  await channels.field('From').fill('Herald <herald@example.com>');
  await expect(channels.form.getByText(`The test email goes to your own address, ${NEWCOMER.email}.`)).toBeVisible();
  await checkA11y(page);
  await channels.button('Send test message').click();
  await expect(channels.testOutcome()).toContainText(`The test message was sent to ${NEWCOMER.email}`);
  await expect.poll(() => herald.smtp.envelopes.length).toBe(1);
  expect(herald.smtp.envelopes[0]!.to).toEqual([NEWCOMER.email]);
  await channels.button('Create channel').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Team mail' })).toBeVisible();
});
