/**
 * Every way in: a password with an authenticator code or a recovery code as the second step; a
 * passkey added in the profile, then used as the second step and without a password (Chromium's
 * virtual authenticator); single sign-on through a real OpenID provider on loopback; a temporary
 * password that must be changed first; a second factor the workspace requires; "forgot password".
 */
import { test, expect, signIn, checkA11y } from './support/fixtures.js';
import { Authenticator, enrolTotp, userSession, virtualAuthenticator } from './support/identity.js';
import { screen } from './support/screens.js';
import { SignInPage } from './pages/SignInPage.js';
import { ProfilePage } from './pages/ProfilePage.js';
import { startOidcPeer } from '../../tests/support/oidc-peer.js';

test('a password, then a wrong and a right authenticator code, and back to the page asked for', async ({ page, herald }) => {
  const user = await herald.user('editor', 'Tess Totp');
  const session = await userSession(herald.url, user);
  const { app } = await enrolTotp(session);
  await session.dispose();

  const signInPage = new SignInPage(page);
  await signInPage.open('/profile');
  await screen(page, 'web-auth-sign-in');
  await signInPage.withPassword(user.email, user.password);
  await expect(signInPage.secondStep).toBeVisible();
  await expect(page.getByText(`Signing in as ${user.email}`)).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Authenticator app' })).toHaveAttribute('aria-selected', 'true');
  await checkA11y(page);
  await screen(page, 'web-auth-second-step');

  await signInPage.withAuthenticatorCode('000000');
  await expect(page.getByRole('alert')).toContainText('This code is not right');
  await signInPage.withAuthenticatorCode(await app.code());
  await expect(page.getByRole('heading', { name: 'Profile', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(`${herald.url}/profile`);
});

test('a recovery code instead of the authenticator app, and how many are left', async ({ page, herald }) => {
  const user = await herald.user('viewer', 'Rita Recovery');
  const session = await userSession(herald.url, user);
  const { recoveryCodes } = await enrolTotp(session);
  await session.dispose();

  const signInPage = new SignInPage(page);
  await signInPage.open();
  await signInPage.withPassword(user.email, user.password);
  await expect(signInPage.secondStep).toBeVisible();
  // Typed as people do: upper case, without the dashes.
  await signInPage.withRecoveryCode(recoveryCodes[0]!.replaceAll('-', ' ').toUpperCase());
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await expect(page.getByText('9 recovery codes are left.')).toBeVisible();

  // The code worked once.
  await page.context().clearCookies();
  await signInPage.open();
  await signInPage.withPassword(user.email, user.password);
  await signInPage.withRecoveryCode(recoveryCodes[0]!);
  await expect(page.getByRole('alert')).toContainText('This code is not right, or was used already.');
});

test('a passkey added in the profile signs in as the second step, and without a password', async ({ page, herald }) => {
  const user = await herald.user('editor', 'Paula Passkey');
  const authenticator = await virtualAuthenticator(page);
  await signIn(page, user);
  const profile = new ProfilePage(page);
  await profile.open();
  await expect(profile.passkeys.getByText('No passkeys yet')).toBeVisible();
  await profile.addPasskey('Work laptop');
  expect(await authenticator.credentials()).toBe(1);
  await expect(page.getByText('Passkey “Work laptop” is added.')).toBeVisible();

  // The password now asks for the passkey as the second step.
  await page.context().clearCookies();
  const signInPage = new SignInPage(page);
  await signInPage.open('/profile');
  await signInPage.withPassword(user.email, user.password);
  await expect(signInPage.secondStep).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Passkey' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tab', { name: 'Authenticator app' })).toHaveCount(0);
  await signInPage.withPasskeyStep();
  await expect(page.getByRole('heading', { name: 'Profile', level: 1 })).toBeVisible();

  // And alone, without the password.
  await page.context().clearCookies();
  await signInPage.open('/profile');
  await signInPage.withPasskeyOnly();
  await expect(page.getByRole('heading', { name: 'Profile', level: 1 })).toBeVisible();
  await expect(page.getByRole('button', { name: `Account of ${user.name}` })).toBeVisible();
  await expect(profile.sessions.getByRole('row', { name: /This session/ })).toContainText('Passkey');
  await expect(profile.passkeys.getByRole('row', { name: /Work laptop/ })).not.toContainText('Never');
});

test('a passkey is renamed and removed in the profile, and then signs no one in', async ({ page, herald }) => {
  const user = await herald.user('viewer', 'Rob Rename');
  await virtualAuthenticator(page);
  await signIn(page, user);
  const profile = new ProfilePage(page);
  await profile.open();
  await profile.addPasskey('Work laptop');
  await profile.passkeys.getByRole('button', { name: 'Rename passkey Work laptop' }).click();
  await profile.dialog.getByLabel('Name').fill('Desk key');
  await profile.dialog.getByRole('button', { name: 'Save' }).click();
  await expect(profile.passkeys.getByRole('cell', { name: 'Desk key', exact: true })).toBeVisible();
  await screen(page, 'web-auth-passkeys', profile.passkeys);
  await profile.passkeys.getByRole('button', { name: 'Remove passkey Desk key' }).click();
  await expect(profile.dialog).toContainText('It can no longer sign you in.');
  await checkA11y(page);
  await profile.dialog.getByRole('button', { name: 'Remove' }).click();
  await expect(profile.passkeys.getByText('No passkeys yet')).toBeVisible();

  await page.context().clearCookies();
  const signInPage = new SignInPage(page);
  await signInPage.open();
  await signInPage.withPasskeyOnly();
  await expect(page.getByRole('alert')).toContainText('This passkey was not accepted.');
  await expect(signInPage.heading).toBeVisible();
});

test('single sign-on through the identity provider, back to the page asked for; and its refusals', async ({ page, herald }) => {
  test.slow(); // three sign-ins, each a chain of redirects through the provider
  const user = await herald.user('editor', 'Sam Sso');
  const clientSecret = 'a client secret for the browser tests';
  const peer = await startOidcPeer({
    clients: [{ client_id: 'herald-web', client_secret: clientSecret, redirect_uris: [`${herald.url}/api/v1/auth/oidc/callback`] }],
  });
  const signInPage = new SignInPage(page);
  try {
    // Off: the page offers no single sign-on (GET /auth/methods says so).
    await signInPage.open('/profile');
    await expect(page.getByRole('button', { name: 'Sign in with a passkey' })).toBeVisible();
    await expect(page.getByRole('button', { name: /single sign-on|Example ID/ })).toHaveCount(0);

    const current = await herald.seed.call('getOidcSettings');
    await herald.seed.call('replaceOidcSettings', {
      body: { enabled: true, issuer_url: peer.issuer, client_id: 'herald-web', client_secret: clientSecret, button_label: 'Sign in with Example ID', version: current.version },
    });
    peer.addAccount({ sub: 'sam-1', email: user.email, email_verified: true, name: user.name });
    peer.signInAs('sam-1');
    await signInPage.open('/profile');
    await signInPage.withSingleSignOn('Sign in with Example ID');
    await expect(page.getByRole('heading', { name: 'Profile', level: 1 })).toBeVisible();
    await expect(page).toHaveURL(`${herald.url}/profile`);
    await expect(page.getByRole('button', { name: `Account of ${user.name}` })).toBeVisible();
    await expect(new ProfilePage(page).sessions.getByRole('row', { name: /This session/ })).toContainText('Single sign-on');

    // The provider refuses: back on the sign-in page with the reason.
    await page.context().clearCookies();
    peer.signInAs(null);
    await signInPage.open('/profile');
    await signInPage.withSingleSignOn('Sign in with Example ID');
    await expect(page).toHaveURL(/\/sign-in\?error=oidc\.provider_error/);
    await expect(page.getByRole('alert')).toContainText('Your identity provider refused the sign-in.');
    await checkA11y(page);
  } finally {
    const now = await herald.seed.call('getOidcSettings');
    await herald.seed.call('replaceOidcSettings', { body: { enabled: false, version: now.version } });
    await peer.close();
  }
});

test('a temporary password must be changed first, then the page asked for opens', async ({ page, herald }) => {
  const email = `temp-${Date.now()}@example.com`;
  await herald.seed.call('createUser', { body: { name: 'Tom Temporary', email, role: 'viewer', temporary_password: 'temporary password 1' } });
  const signInPage = new SignInPage(page);
  await signInPage.open('/profile');
  await signInPage.withPassword(email, 'temporary password 1');
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
  await expect(page.getByText('Welcome, Tom Temporary.')).toBeVisible();
  await checkA11y(page);
  await screen(page, 'web-auth-change-password');

  await page.getByLabel('Temporary password').fill('temporary password 1');
  await page.getByRole('textbox', { name: 'New password', exact: true }).fill('my very own password');
  await page.getByLabel('Repeat the new password').fill('my very own passwort');
  await page.getByRole('button', { name: 'Save and continue' }).click();
  await expect(page.getByText('The two passwords are not the same.')).toBeVisible();
  await page.getByLabel('Repeat the new password').fill('my very own password');
  await page.getByRole('button', { name: 'Save and continue' }).click();
  await expect(page.getByRole('heading', { name: 'Profile', level: 1 })).toBeVisible();

  // The new password is the one that signs in now.
  const again = await userSession(herald.url, { email, password: 'my very own password' });
  await again.dispose();
});

test('a second factor the workspace requires is enrolled right after the password', async ({ page, herald }) => {
  const user = await herald.user('editor', 'Erin Enrol');
  const settings = await herald.seed.call('getSettings');
  await herald.seed.call('updateSettings', { body: { require_second_factor: true, version: settings.version } });
  try {
    const signInPage = new SignInPage(page);
    await signInPage.open('/profile');
    await signInPage.withPassword(user.email, user.password);
    await expect(page.getByRole('heading', { name: 'Add a second factor' })).toBeVisible();
    await checkA11y(page);
    // Another page of the app leads back here while none is enrolled.
    await page.goto('/profile');
    await expect(page.getByRole('heading', { name: 'Add a second factor' })).toBeVisible();

    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await expect(page.getByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeVisible();
    await screen(page, 'web-auth-enrol');
    const secret = await new ProfilePage(page).shownSecret();
    await page.getByLabel('Code from the app').fill(await new Authenticator(secret).code());
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect(page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await expect(page.getByRole('heading', { name: 'Profile', level: 1 })).toBeVisible();
    await expect(new ProfilePage(page).authenticator.getByText('On', { exact: true })).toBeVisible();
  } finally {
    const now = await herald.seed.call('getSettings');
    await herald.seed.call('updateSettings', { body: { require_second_factor: false, version: now.version } });
  }
});

test('forgot password: a link by email opens the page that sets a new one', async ({ page, herald }) => {
  const user = await herald.user('viewer', 'Fay Forgetful');
  const signInPage = new SignInPage(page);
  await signInPage.open();
  await page.getByLabel('Email').fill(user.email);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
  await expect(page.getByLabel('Email')).toHaveValue(user.email);
  await checkA11y(page);
  await page.getByRole('button', { name: 'Send the link' }).click();
  await expect(page.getByRole('status')).toContainText(`If ${user.email} belongs to an account, a link is on its way.`);

  await expect.poll(() => herald.smtp.messages.some((m) => m.to && JSON.stringify(m.to).includes(user.email))).toBe(true);
  const mail = herald.smtp.messages.find((m) => JSON.stringify(m.to).includes(user.email))!;
  const link = /https?:\/\/\S+\/reset-password#token=[\w-]+/.exec(mail.text ?? '')?.[0];
  expect(link, mail.text).toBeDefined();
  await page.goto(link!);
  await page.getByLabel(/New password/).fill('a fresh new password');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page.getByRole('status')).toContainText('Your password is changed.');

  await signInPage.open();
  await signInPage.withPassword(user.email, 'a fresh new password');
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
});
