/**
 * The profile: preferences (German texts and another time zone), a change made meanwhile (409),
 * the password, sessions signed out one by one and all at once, the authenticator app enrolled
 * with its QR code and recovery codes, new recovery codes, and turning it off.
 */
import { test, expect, signIn, checkA11y } from './support/fixtures.js';
import { Authenticator, csrfOf, enrolTotp, loginAnswer, signInWithCode, userSession } from './support/identity.js';
import { screen } from './support/screens.js';
import { ProfilePage } from './pages/ProfilePage.js';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

test('name, language, time zone and theme are saved; the page then speaks German and shows times in that zone', async ({ page, herald }) => {
  const user = await herald.user('viewer', 'Dana Prefs');
  await signIn(page, user);
  const profile = new ProfilePage(page);
  await profile.open();
  await expect(profile.account.getByLabel('Email')).toHaveValue(user.email);
  await checkA11y(page);
  await screen(page, 'web-auth-profile');

  await profile.account.getByRole('textbox', { name: 'Name' }).fill('Dana Deutsch');
  await profile.account.getByRole('textbox', { name: 'Language' }).click();
  await page.getByRole('option', { name: 'Deutsch' }).click();
  await profile.account.getByRole('textbox', { name: 'Time zone' }).fill('New_York');
  await page.getByRole('option', { name: 'America/New_York' }).click();
  await profile.account.getByText('Dark').click();
  await profile.account.getByRole('button', { name: 'Save' }).click();

  await expect(page.getByRole('heading', { name: 'Profil', level: 1 })).toBeVisible();
  await expect(page.getByText('Ihr Profil ist gespeichert.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Konto von Dana Deutsch' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
  const me = await (await page.request.get('/api/v1/me')).json() as { name: string; preferences: Record<string, string> };
  expect(me).toMatchObject({ name: 'Dana Deutsch', preferences: { locale: 'de', timezone: 'America/New_York', theme: 'dark' } });

  // The session's sign-in time, as Herald shows it to this user: German, in New York's time.
  const { items } = await (await page.request.get('/api/v1/me/sessions')).json() as { items: Array<{ current: boolean; created_at: string }> };
  const signedIn = new Intl.DateTimeFormat('de', { timeZone: 'America/New_York', dateStyle: 'medium', timeStyle: 'short' })
    .format(new Date(items.find((s) => s.current)!.created_at));
  const current = profile.sessions.getByRole('row', { name: /Diese Sitzung/ });
  await expect(current).toContainText(signedIn);
  await expect(current.locator('time').first()).toHaveAttribute('title', /UTC/);
  await checkA11y(page);
  await screen(page, 'web-auth-profile-de-dark');
});

test('a change made meanwhile is not overwritten: the form says so and reloads', async ({ page, herald }) => {
  const user = await herald.user('editor', 'Max Meanwhile');
  await signIn(page, user);
  const profile = new ProfilePage(page);
  await profile.open();
  await expect(profile.account.getByRole('textbox', { name: 'Name' })).toHaveValue('Max Meanwhile');

  // Another tab renames the user.
  const me = await (await page.request.get('/api/v1/me')).json() as { version: number };
  const other = await page.request.patch('/api/v1/me', { data: { version: me.version, name: 'Max From Elsewhere' }, headers: await csrfOf(page) });
  expect(other.status(), await other.text()).toBe(200);

  await profile.account.getByRole('textbox', { name: 'Name' }).fill('Max Here');
  await profile.account.getByRole('button', { name: 'Save' }).click();
  const alert = profile.account.getByRole('alert');
  await expect(alert).toContainText('Changed meanwhile');
  await expect(alert).toContainText('Someone changed this meanwhile.');
  await checkA11y(page);
  await alert.getByRole('button', { name: 'Reload' }).click();
  await expect(profile.account.getByRole('textbox', { name: 'Name' })).toHaveValue('Max From Elsewhere');
  await expect(profile.account.getByRole('alert')).toHaveCount(0);
});

test('the password changes with the current one, and the other sessions end', async ({ page, herald }) => {
  const user = await herald.user('viewer', 'Pat Password');
  const elsewhere = await userSession(herald.url, user, FIREFOX);
  await signIn(page, user);
  const profile = new ProfilePage(page);
  await profile.open();
  const form = profile.password;
  await form.getByRole('textbox', { name: 'Current password' }).fill('not my password');
  await form.getByRole('textbox', { name: 'New password', exact: true }).fill('another long password');
  await form.getByRole('textbox', { name: 'Repeat the new password' }).fill('another long password');
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByText('This is not your current password.')).toBeVisible();

  await form.getByRole('textbox', { name: 'Current password' }).fill(user.password);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Your password is changed. Your other sessions were signed out.')).toBeVisible();
  await expect(form.getByRole('textbox', { name: 'Current password' })).toHaveValue('');
  await elsewhere.call('GET', '/me', undefined, 401);
  await elsewhere.dispose();
  const again = await userSession(herald.url, { email: user.email, password: 'another long password' });
  await again.dispose();
});

test('sessions: one signed out, then every other, then everywhere', async ({ page, herald }) => {
  const user = await herald.user('editor', 'Sid Sessions');
  const firefox = await userSession(herald.url, user, FIREFOX);
  const iphone = await userSession(herald.url, user, SAFARI);
  const cli = await userSession(herald.url, user, 'curl/8.5.0');
  await signIn(page, user);
  const profile = new ProfilePage(page);
  await profile.open();
  const sessions = profile.sessions;
  await expect(sessions.getByRole('row', { name: /This session/ })).toBeVisible();
  await screen(page, 'web-auth-sessions', sessions);

  const firefoxRow = sessions.getByRole('row', { name: /Firefox 128 on Windows/ });
  await expect(firefoxRow).toContainText('Password');
  await firefoxRow.getByRole('button', { name: 'Sign out' }).click();
  await expect(firefoxRow).toHaveCount(0);
  await firefox.call('GET', '/me', undefined, 401);
  await iphone.call('GET', '/me');

  await expect(sessions.getByRole('row', { name: /Safari 17 on iPhone/ })).toBeVisible();
  await expect(sessions.getByRole('row', { name: /curl\/8\.5\.0/ })).toBeVisible();
  await sessions.getByRole('button', { name: 'Sign out other sessions' }).click();
  // The header and this session are left.
  await expect(sessions.getByRole('row')).toHaveCount(2);
  await expect(sessions.getByRole('row', { name: /This session/ })).toBeVisible();
  await iphone.call('GET', '/me', undefined, 401);
  await cli.call('GET', '/me', undefined, 401);
  await expect(page.getByRole('button', { name: `Account of ${user.name}` })).toBeVisible();

  await sessions.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page.getByText('You are signed out.')).toBeVisible();
  expect((await page.request.get('/api/v1/me')).status()).toBe(401);
  await Promise.all([firefox.dispose(), iphone.dispose(), cli.dispose()]);
});

test('the authenticator app is enrolled from its QR code; the recovery codes are shown once', async ({ page, herald }) => {
  const user = await herald.user('viewer', 'Alex App');
  await signIn(page, user);
  const profile = new ProfilePage(page);
  await profile.open();
  const section = profile.authenticator;
  await expect(section.getByText('Off', { exact: true })).toBeVisible();
  await section.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const qr = section.getByRole('img', { name: 'QR code to scan with your authenticator app' });
  await expect(qr).toBeVisible();
  await expect(qr).toHaveAttribute('src', /^data:image\/svg\+xml;base64,/);
  expect(await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
  const app = new Authenticator(await profile.shownSecret(section));
  await checkA11y(page);
  await screen(page, 'web-auth-totp-setup', section);

  await section.getByLabel('Code from the app').fill('123');
  await section.getByRole('button', { name: 'Turn on' }).click();
  await expect(section.getByText('Enter the six digits your app shows.')).toBeVisible();
  await section.getByLabel('Code from the app').fill(await app.code());
  await section.getByRole('button', { name: 'Turn on' }).click();
  const codes = section.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await expect(codes).toHaveCount(10);
  await expect(codes.first()).toHaveText(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
  await checkA11y(page);
  await screen(page, 'web-auth-recovery-codes', section);
  await section.getByRole('button', { name: 'I have saved them' }).click();
  await expect(codes).toHaveCount(0);
  await expect(section.getByText('On', { exact: true })).toBeVisible();
  expect(await loginAnswer(herald.url, user)).toMatchObject({ status: 'second_factor_required', methods: ['totp', 'recovery_code'] });
});

test('new recovery codes replace the old ones; the authenticator app is turned off with the password', async ({ page, herald }) => {
  const user = await herald.user('viewer', 'Olga Off');
  const session = await userSession(herald.url, user);
  const { app, recoveryCodes } = await enrolTotp(session);
  await session.dispose();
  await signInWithCode(page, user, await app.code());
  const profile = new ProfilePage(page);
  await profile.open();
  const section = profile.authenticator;
  await expect(section.getByText('On', { exact: true })).toBeVisible();

  await section.getByRole('button', { name: 'New recovery codes' }).click();
  await profile.dialog.getByText('Code', { exact: true }).click();
  await profile.dialog.getByRole('textbox', { name: 'Authenticator or recovery code' }).fill(recoveryCodes[0]!);
  await profile.dialog.getByRole('button', { name: 'New recovery codes' }).click();
  const fresh = profile.dialog.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await expect(fresh).toHaveCount(10);
  const replaced = await fresh.allTextContents();
  expect(replaced.filter((c) => recoveryCodes.includes(c))).toEqual([]);
  await profile.dialog.getByRole('button', { name: 'I have saved them' }).click();
  await expect(profile.dialog).toHaveCount(0);

  await section.getByRole('button', { name: 'Turn off' }).click();
  await profile.dialog.getByRole('textbox', { name: 'Current password' }).fill('not my password');
  await profile.dialog.getByRole('button', { name: 'Turn off' }).click();
  await expect(profile.dialog.getByText('This is not your current password.')).toBeVisible();
  await checkA11y(page);
  await profile.dialog.getByRole('textbox', { name: 'Current password' }).fill(user.password);
  await profile.dialog.getByRole('button', { name: 'Turn off' }).click();
  await expect(section.getByText('Off', { exact: true })).toBeVisible();
  await expect(section.getByRole('button', { name: 'Set up an authenticator app' })).toBeVisible();
});
