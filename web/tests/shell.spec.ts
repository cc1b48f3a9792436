/**
 * The shell: the setup wizard on a fresh instance, password sign-in, a page opened without a
 * session leading to sign-in and back, navigation by role, sign-out, German texts.
 */
import { test, expect, signIn, checkA11y, ADMIN } from './support/fixtures.js';
import { startHerald } from './support/herald.js';

test('a fresh instance opens the setup wizard, which makes the first admin and signs them in', async ({ page }) => {
  const fresh = await startHerald({ fresh: true });
  try {
    await page.goto(`${fresh.url}/reports`);
    await expect(page).toHaveURL(/\/setup$/);
    await expect(page.getByRole('heading', { name: 'Set up Herald' })).toBeVisible();
    await checkA11y(page);
    await page.getByLabel('Name').fill('Grace Admin');
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await expect(page.getByRole('alert')).toContainText('password');
    await page.getByLabel('Password').fill('a good long password');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Account of Grace Admin' })).toBeVisible();
    // The wizard is gone once a user exists.
    await page.goto(`${fresh.url}/setup`);
    await expect(page).toHaveURL(/\/sign-in$|\/$/);
  } finally {
    await fresh.stop();
  }
});

test('sign-in with a wrong then the right password, and back to the page asked for', async ({ page, herald }) => {
  await page.goto('/runs?status=failed');
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await expect(page.getByRole('heading', { name: 'Sign in to Herald' })).toBeVisible();
  await checkA11y(page);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('The email or password is not right.');
  await expect(page.getByText('Your session ended.')).toHaveCount(0);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(`${herald.url}/runs?status=failed`);
});

test('a session that ends leads to sign-in, then back where the user was', async ({ page, context, herald }) => {
  await signIn(page);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await context.clearCookies();
  await page.goto('/runs');
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fruns/);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(`${herald.url}/runs`);
});

test('sign-out ends the session', async ({ page }) => {
  await signIn(page);
  await page.goto('/');
  await page.getByRole('button', { name: `Account of ${ADMIN.name}` }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page.getByText('You are signed out.')).toBeVisible();
  const me = await page.request.get('/api/v1/me');
  expect(me.status()).toBe(401);
});

test('the navigation shows a viewer only what a viewer may use', async ({ page, herald }) => {
  const viewer = await herald.user('viewer', 'Vera Viewer');
  await signIn(page, viewer);
  await page.goto('/');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Dashboard' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Users' })).toHaveCount(0);
  await checkA11y(page);
});

test('the UI speaks German to a user who prefers it', async ({ page, herald }) => {
  const user = await herald.user('editor', 'Dora Deutsch');
  await signIn(page, user);
  const me = await (await page.request.get('/api/v1/me')).json() as { version: number };
  const csrf = (await page.context().cookies()).find((c) => c.name === 'svc_csrf')!.value;
  const res = await page.request.patch('/api/v1/me', { data: { version: me.version, preferences: { locale: 'de' } }, headers: { 'X-CSRF-Token': csrf } });
  expect(res.status(), await res.text()).toBe(200);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Übersicht' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
});

test('the page is served with a strict Content-Security-Policy, and the UI raises no violation', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  const res = await page.goto('/sign-in');
  const csp = res!.headers()['content-security-policy']!;
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  await expect(page.getByRole('heading', { name: 'Sign in to Herald' })).toBeVisible();
  expect(violations).toEqual([]);
  // Its icon is there (no 404 on every page load).
  const icon = await page.request.get(await page.locator('link[rel="icon"]').getAttribute('href') ?? '/favicon.svg');
  expect([icon.status(), icon.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
});

test('the accessibility check fails on a serious violation, also one added after a route change in the app', async ({ page }) => {
  await signIn(page);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await checkA11y(page);
  // A route change inside the app keeps the document (and axe in it): the check still reads the page as it is now.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
  await expect(page.getByRole('heading', { name: 'Reports', level: 1 })).toBeVisible();
  await page.evaluate(`document.querySelector('main').insertAdjacentHTML('beforeend',
    '<img id="a11y-probe-img" src="/favicon.svg"><button id="a11y-probe-button"></button>')`);
  const failed = await checkA11y(page).then(() => '', (e: unknown) => String(e));
  expect(failed).toContain('image-alt');
  expect(failed).toContain('#a11y-probe-img');
  expect(failed).toContain('button-name');
  expect(failed).toContain('#a11y-probe-button');
  await page.evaluate(`document.querySelectorAll('[id^="a11y-probe"]').forEach((e) => e.remove())`);
  await checkA11y(page);
});

test('a page still loading is accessible: its spinner is announced as loading', async ({ page }) => {
  await signIn(page);
  // The channels' list is held until the check has seen the page waiting for it.
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  await page.route((url) => url.pathname === '/api/v1/channels', async (route) => { await held; await route.continue(); });
  await page.goto('/channels');
  await expect(page.getByRole('heading', { level: 1, name: 'Channels' })).toBeVisible();
  await expect(page.getByRole('status', { name: /Loading/ })).toBeVisible();
  await checkA11y(page);
  release();
  await expect(page.getByRole('status', { name: /Loading/ })).toHaveCount(0);
});
