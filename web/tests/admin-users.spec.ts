/**
 * Users and access (issue 25, part 3), as an admin and as an editor would use them: members added
 * with a temporary password shown once, roles changed (and a change made meanwhile), accounts
 * disabled and enabled, passwords reset, second factors turned off; API keys made in the browser,
 * used by the SDK and revoked; the audit trail with its filters in the address; and the admin
 * pages showing an editor nothing to do. axe on every page.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { generate } from 'otplib';
import { createClient, HeraldError } from '../../sdk/src/index.js';
import { test, expect, signIn, checkA11y, ADMIN } from './support/fixtures.js';
import type { RunningHerald } from './support/herald.js';
import { UsersPage } from './pages/UsersPage.js';
import { ApiKeysPage } from './pages/ApiKeysPage.js';
import { AuditPage } from './pages/AuditPage.js';

/** Screenshots for people to look at, only when HERALD_SCREENS names a folder (outside the repo). */
const SCREENS = process.env.HERALD_SCREENS;

// Each test walks several pages with an axe run on each (seconds apiece on a busy two-core machine).
test.describe.configure({ timeout: 120_000 });

/** A screenshot of the page as it is, for a person to look at (not part of the repository). */
async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENS) return;
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/web-admin-${name}.png`, fullPage: true });
}

let unique = 0;
const emailFor = (who: string) => `${who}-${Date.now()}-${unique += 1}@example.com`;

/** A second browser, as the member would use it on their own machine. */
async function otherBrowser(browser: Browser, herald: RunningHerald): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: herald.url, locale: 'en-GB', timezoneId: 'Europe/Berlin' });
  return { context, page: await context.newPage() };
}

async function signInThroughForm(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('an admin adds a member, whose temporary password is shown once and must be changed at the first sign-in', async ({ page, browser, herald }) => {
  await signIn(page);
  const users = new UsersPage(page);
  await users.open();
  await expect(users.row(ADMIN.name)).toContainText('Administrator');
  await checkA11y(page);

  const email = emailFor('greta');
  const temporary = await users.add({ name: 'Greta Green', email, role: 'Editor' });
  await expect(page.getByText('This is shown only once.')).toBeVisible();
  await checkA11y(page);
  await shot(page, 'add-user');
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(users.row('Greta Green')).toContainText('Editor');
  await expect(users.row('Greta Green')).toContainText('Must change password');
  await expect(users.row('Greta Green')).toContainText(email);
  await shot(page, 'users');

  // Opening the dialog again shows an empty form: the password is gone from the page.
  await expect(page.getByRole('dialog')).toHaveCount(0); // the closing dialog still holds its own "Add user" while it fades
  await page.getByRole('button', { name: 'Add user' }).click();
  await expect(page.getByRole('dialog', { name: 'Add a user' }).getByLabel('Name')).toHaveValue('');
  await expect(page.getByRole('textbox', { name: 'Temporary password' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Cancel' }).click();

  // Greta signs in on her own machine with the temporary password and is asked for a new one.
  const greta = await otherBrowser(browser, herald);
  try {
    await signInThroughForm(greta.page, email, temporary);
    await expect(greta.page).toHaveURL(/\/change-password/);
    // The /change-password page is another helper's; the account's state says the same through the API.
    const me = await (await greta.page.request.get('/api/v1/me')).json() as { must_change_password: boolean; role: string };
    expect(me).toMatchObject({ must_change_password: true, role: 'editor' });
  } finally {
    await greta.context.close();
  }
});

test('an admin changes a role, meets a change made meanwhile, and disables a member whose sign-in is then refused', async ({ page, browser, herald }) => {
  const victor = await herald.user('viewer', 'Victor Viewer');
  await signIn(page);
  const users = new UsersPage(page);
  await users.open();
  await users.openMember('Victor Viewer');
  await expect(page.getByRole('region', { name: 'Account' }).getByLabel('Email')).toHaveValue(victor.email);
  await checkA11y(page);

  await users.setRole('Editor');
  await expect(page.getByText('Saved.')).toBeVisible();
  expect((await herald.seed.call('getUser', { path: { userId: victor.id } })).role).toBe('editor');

  // Someone renames Victor meanwhile: saving the page's older picture says so, and Reload shows theirs.
  const now = await herald.seed.call('getUser', { path: { userId: victor.id } });
  await herald.seed.call('updateUser', { path: { userId: victor.id }, body: { name: 'Victor Vance', version: now.version! } });
  await users.setRole('Administrator');
  await expect(page.getByRole('alert').filter({ hasText: 'Someone changed this meanwhile.' })).toBeVisible();
  await page.getByRole('button', { name: 'Reload' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Victor Vance' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Account' }).getByLabel('Role')).toHaveValue('editor');
  await shot(page, 'user');

  await users.confirmAction('Disable account', 'Disable Victor Vance?');
  await expect(page.getByText('This account is disabled')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Access' }).getByRole('button', { name: 'Enable account' })).toBeVisible();

  const other = await otherBrowser(browser, herald);
  try {
    await signInThroughForm(other.page, victor.email, victor.password);
    await expect(other.page.getByRole('alert')).toContainText('The email or password is not right.');

    await users.confirmAction('Enable account', 'Enable Victor Vance?');
    await expect(page.getByText('This account is disabled')).toHaveCount(0);
    await other.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(other.page.getByRole('button', { name: 'Account of Victor Vance' })).toBeVisible();
  } finally {
    await other.context.close();
  }
});

test('an admin turns off a member\'s second factor and resets their password, shown once', async ({ page, playwright, herald }) => {
  const rita = await herald.user('viewer', 'Rita Reset');
  // Rita turns on her authenticator app through the API.
  const ritaApi = await playwright.request.newContext({ baseURL: herald.url });
  try {
    expect((await ritaApi.post('/api/v1/auth/login', { data: { email: rita.email, password: rita.password } })).status()).toBe(200);
    const csrf = { 'X-CSRF-Token': (await ritaApi.storageState()).cookies.find((c) => c.name === 'svc_csrf')!.value };
    const setup = await (await ritaApi.post('/api/v1/me/2fa/totp/setup', { headers: csrf })).json() as { secret: string };
    const confirmed = await ritaApi.post('/api/v1/me/2fa/totp/confirm', { headers: csrf, data: { code: await generate({ secret: setup.secret }) } });
    expect(confirmed.status(), await confirmed.text()).toBe(200);
  } finally {
    await ritaApi.dispose();
  }

  await signIn(page);
  await page.goto(`/users/${rita.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Rita Reset' })).toBeVisible();
  await expect(page.getByText('Authenticator app: On.')).toBeVisible();

  await page.getByRole('button', { name: 'Turn off second factor' }).click();
  const ask = page.getByRole('dialog', { name: 'Turn off the second factor of Rita Reset?' });
  await expect(ask).toContainText('removes every passkey');
  await ask.getByRole('button', { name: 'Turn off second factor' }).click();
  await expect(page.getByText('The second factor of Rita Reset is off.')).toBeVisible();
  await expect(page.getByText('Authenticator app: Off.')).toBeVisible();
  expect((await herald.seed.call('getUser', { path: { userId: rita.id } })).two_factor_enabled).toBe(false);

  await new UsersPage(page).confirmAction('Reset password', 'Reset the password of Rita Reset?');
  const field = page.getByRole('textbox', { name: 'Temporary password' });
  await expect(field).toHaveValue(/\S{10,}/);
  const temporary = await field.inputValue();
  await checkA11y(page);

  // The old password no longer works; the temporary one does, and must be changed.
  const login = (password: string) => fetch(`${herald.url}/api/v1/auth/login`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: rita.email, password }),
  });
  expect((await login(rita.password)).status).toBe(401);
  const fresh = await login(temporary);
  expect(fresh.status).toBe(200);
  expect(await fresh.json()).toMatchObject({ status: 'signed_in', user: { must_change_password: true } });
});

test('a new key offers only the scopes its owner\'s role can use, and the owner filter lives in the address', async ({ page, herald }) => {
  const edna = await herald.user('editor', 'Edna Editor');
  await herald.seed.call('createApiKey', { body: { name: 'edna ci', scope: 'run', owner_id: edna.id } });
  await signIn(page);
  const keys = new ApiKeysPage(page);
  await keys.open();
  await checkA11y(page);
  await shot(page, 'api-keys');

  await page.getByLabel('Owner', { exact: true }).selectOption({ label: 'Edna Editor' });
  await expect(page).toHaveURL(new RegExp(`[?&]owner=${edna.id}`));
  await expect(keys.row('edna ci')).toContainText('Run');
  await expect(keys.row('browser tests')).toHaveCount(0);

  // The dialog starts with the filtered owner; a key acts at most with its owner's role.
  const dialog = await keys.startCreate();
  await expect(dialog.getByLabel('Owner')).toHaveValue(edna.id);
  await expect.poll(() => keys.offeredScopes(dialog)).toEqual(['Read', 'Run', 'Write']);
  await expect(dialog).toContainText('Scopes above the owner\'s role (Editor) are not offered');
  await checkA11y(page);
  await dialog.getByLabel('Owner').selectOption({ label: `${ADMIN.name} (Administrator)` });
  await expect.poll(() => keys.offeredScopes(dialog)).toEqual(['Read', 'Run', 'Write', 'Admin']);
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await page.reload();
  await expect(page.getByLabel('Owner', { exact: true })).toHaveValue(edna.id);
  await page.getByLabel('Owner', { exact: true }).selectOption({ label: 'Everyone' });
  await expect(page).toHaveURL(/\/api-keys$/);
  await expect(keys.row('browser tests')).toBeVisible();
});

test('an API key made in the browser is copied from the page, lists reports through the SDK, and is refused once revoked', async ({ page, context, herald }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const connection = await herald.seed.call('createConnection', {
    body: { name: `Local ${Date.now()}`, type: 'postgres', host: '127.0.0.1', port: 5432, database: 'postgres', username: 'postgres', ssl_mode: 'disable' },
  });
  const query = await herald.seed.call('createQuery', { body: { name: `One ${Date.now()}`, connection_id: connection.id, sql: 'select 1 as one' } });
  await herald.seed.call('createReport', { body: { title: 'Keys check report', query_id: query.id } });

  await signIn(page);
  const keys = new ApiKeysPage(page);
  await keys.open();
  const dialog = await keys.startCreate();
  await dialog.getByLabel('Name').fill('nightly export');
  await dialog.getByRole('radio', { name: 'Read' }).check();
  await dialog.getByLabel('Expires').selectOption({ label: 'In 30 days' });
  await dialog.getByRole('button', { name: 'Create key' }).click();

  const created = page.getByRole('dialog', { name: 'API key nightly export was created' });
  const token = created.getByRole('textbox', { name: 'Token' });
  await expect(token).toHaveValue(/^hk_[A-Za-z0-9_-]{32,}$/);
  await checkA11y(page);
  await shot(page, 'api-key-token');
  await created.getByRole('button', { name: 'Copy Token' }).click();
  await expect(created.getByRole('button', { name: 'Copied' })).toBeVisible();
  // The page's own clipboard, as a paste would read it (the browser's global, not Node's).
  const copied = await page.evaluate('navigator.clipboard.readText()') as string;
  expect(copied).toBe(await token.inputValue());

  const sdk = createClient({ baseUrl: herald.url, apiKey: copied, retry: false });
  const reports = await sdk.call('listReports');
  expect(reports.items.map((r) => r.title)).toContain('Keys check report');

  await created.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  const row = keys.row('nightly export');
  await expect(row).toContainText('Read');
  await expect(row).toContainText('Active');
  await expect(row).toContainText(ADMIN.name);
  await page.reload();
  await expect(row).not.toContainText('Never');

  await row.getByRole('button', { name: 'Revoke nightly export' }).click();
  const ask = page.getByRole('dialog', { name: 'Revoke the API key nightly export?' });
  await expect(ask).toBeVisible();
  await checkA11y(page);
  await ask.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText('Revoked');
  await expect(row.getByRole('button', { name: 'Revoke nightly export' })).toHaveCount(0);

  const refused = await sdk.call('listReports').then(() => undefined, (e: unknown) => e);
  expect(refused).toBeInstanceOf(HeraldError);
  expect((refused as HeraldError).status).toBe(401);
});

test('the audit trail shows what happened, filtered by type and member in the address, page by page', async ({ page, herald }) => {
  const audrey = await herald.user('viewer', 'Audrey Audit');
  const before = await herald.seed.call('getUser', { path: { userId: audrey.id } });
  await herald.seed.call('updateUser', { path: { userId: audrey.id }, body: { role: 'editor', version: before.version! } });
  const wrong = await fetch(`${herald.url}/api/v1/auth/login`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: audrey.email, password: 'not her password' }),
  });
  expect(wrong.status).toBe(401);

  await signIn(page);
  const audit = new AuditPage(page);
  await audit.open();
  await expect(audit.rows().first()).toBeVisible();

  await audit.filterMember('Audrey Audit');
  await expect(page).toHaveURL(new RegExp(`[?&]user=${audrey.id}`));
  await expect(audit.rows().filter({ hasText: 'Role changed' })).toHaveCount(1);
  await expect(audit.rows().filter({ hasText: 'Member added' })).toHaveCount(1);
  const refusal = audit.rows().filter({ hasText: 'Sign-in' }).filter({ hasText: 'Failure' });
  await expect(refusal).toHaveCount(1);
  await expect(refusal).toContainText('Not signed in');
  await expect(refusal).toContainText('The email or password is not right.');

  await audit.filterType('Role changed');
  await expect(page).toHaveURL(/[?&]type=user\.role_changed/);
  await expect(audit.rows()).toHaveCount(1);
  const changed = audit.rows().first();
  await expect(changed).toContainText(`${ADMIN.name} (API key)`);
  await expect(changed).toContainText('Audrey Audit');
  await changed.getByRole('button', { name: /^Details of Role changed/ }).click();
  await expect(changed.getByRole('button', { name: /^Details of / })).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByText('"from": "viewer"')).toBeVisible();
  await expect(page.getByText('"to": "editor"')).toBeVisible();
  await checkA11y(page);
  await shot(page, 'audit');

  // The filters survive a reload (they are the address), and clear in one click.
  await page.reload();
  await expect(page.getByLabel('Event type')).toHaveValue('user.role_changed');
  await expect(page.getByLabel('Member', { exact: true })).toHaveValue(audrey.id);
  await expect(audit.rows()).toHaveCount(1);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page).toHaveURL(/\/audit$/);

  // More events than one page holds (50): the next page follows the cursor.
  for (let i = 0; i < 51; i += 1) await herald.seed.call('createApiKey', { body: { name: `bulk ${i}`, scope: 'read', owner_id: audrey.id } });
  await audit.open(`?type=api_key.created&user=${audrey.id}`);
  await expect(audit.rows()).toHaveCount(50);
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(audit.rows()).toHaveCount(51);
  await expect(page.getByRole('button', { name: 'Load more' })).toHaveCount(0);
});

test('an event about a resource names it in the About column, with a link to its page', async ({ page, herald }) => {
  const channel = await herald.seed.call('createChannel', { body: { name: `Audited hook ${Date.now()}`, type: 'webhook', settings: { url: `${herald.webhook.url}/audited` } } });
  await signIn(page);
  const audit = new AuditPage(page);
  await audit.open('?type=channel.created');
  const row = audit.rows().filter({ hasText: channel.name }).first();
  await expect(row.getByRole('link', { name: `Channel ${channel.name}` })).toHaveAttribute('href', `/channels/${channel.id}`);
  // Who acted stays in its own column.
  await expect(row).toContainText(`${ADMIN.name} (API key)`);
  await checkA11y(page);
  // The worker's Herald is shared by the spec files it runs: the channels' empty state must not
  // meet this one (CI once ran channels.spec.ts after this test in the same worker).
  await herald.seed.call('deleteChannel', { path: { channelId: channel.id } });
});

test('an editor sees no admin entry, and the admin pages show them nothing to do', async ({ page, herald }) => {
  const editor = await herald.user('editor', 'Eddie Editor');
  const asked: string[] = [];
  page.on('request', (r) => { if (/\/api\/v1\/(users|api-keys|security-events)/.test(r.url())) asked.push(r.url()); });
  await signIn(page, editor);
  await page.goto('/');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Dashboard' })).toBeVisible();
  for (const entry of ['Users', 'API keys', 'Audit trail']) await expect(nav.getByRole('link', { name: entry })).toHaveCount(0);

  for (const [path, title] of [['/users', 'Users'], ['/api-keys', 'API keys'], ['/audit', 'Audit trail']] as const) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(page.getByText('This page is for the Administrator role. There is nothing for you to do here.')).toBeVisible();
    await expect(page.getByRole('table')).toHaveCount(0);
    await expect(page.getByRole('button', { name: /Add user|Create API key/ })).toHaveCount(0);
  }
  await page.goto(`/users/${editor.id}`);
  await expect(page.getByText('There is nothing for you to do here.')).toBeVisible();
  // The three pages share this frame (components/RequireRole): axe once.
  await checkA11y(page);
  await shot(page, 'editor-users');
  expect(asked).toEqual([]);
});
