/**
 * Settings as an admin uses them, against a real Herald: a workspace policy saved (and a save over
 * a version changed meanwhile answering "changed meanwhile" with Reload); single sign-on
 * configured against the real OpenID provider on loopback, its discovery test passing, then failing
 * with the provider's error for a wrong issuer; the AI assistant tested against a loopback
 * OpenAI-compatible server; alerts sent through a webhook channel to the loopback receiver, with
 * the heartbeat; storage and about; and an editor who sees no settings. axe on every section.
 *
 * Every test puts back the workspace-wide settings it changed: the worker's Herald is shared with
 * the other spec files.
 */
import type { Page } from '@playwright/test';
import type { HeraldError } from '../../sdk/src/index.js';
import { startOidcPeer, type OidcPeer } from '../../tests/support/oidc-peer.js';
import { openAiPeer, type OpenAiPeer } from '../../tests/support/ai-peers.js';
import { test, expect, signIn, checkA11y } from './support/fixtures.js';
import { SettingsPage } from './pages/SettingsPage.js';

/**
 * A screenshot for people to look at, when HERALD_SCREENS names a folder (not part of the repo): the
 * whole page in one tall viewport, so the shell's fixed header and navigation stay where they belong.
 */
async function screen(page: Page, name: string): Promise<void> {
  const dir = process.env.HERALD_SCREENS;
  if (!dir) return;
  const size = page.viewportSize() ?? { width: 1280, height: 720 };
  const height = await page.evaluate<number>('document.documentElement.scrollHeight');
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await page.screenshot({ path: `${dir}/web-settings-${name}.png` });
  await page.setViewportSize(size);
}

test('an admin requires a second factor and sees it saved; a save over a change made meanwhile says so and reloads', async ({ page, herald }) => {
  await signIn(page);
  const settings = new SettingsPage(page);
  await settings.open('workspace');
  await expect(settings.heading('Workspace policies')).toBeVisible();
  await checkA11y(page);
  await screen(page, 'workspace');
  const before = await herald.seed.call('getSettings');
  try {
    await expect(settings.switch('Require a second factor')).not.toBeChecked();
    await settings.switch('Require a second factor').check();
    await settings.save();
    await expect(settings.saved()).toBeVisible();
    const saved = await herald.seed.call('getSettings');
    expect(saved).toMatchObject({ require_second_factor: true, version: before.version + 1 });

    // Someone turns it off through the API while the page still shows the version it saved.
    await herald.seed.call('updateSettings', { body: { version: saved.version, require_second_factor: false } });
    await expect(settings.switch('Require a second factor')).toBeChecked();
    await settings.switch('Require a second factor').uncheck();
    await settings.save();
    const alert = page.getByRole('alert').filter({ hasText: 'Someone changed this meanwhile' });
    await expect(alert).toBeVisible();
    await expect(settings.saved()).toHaveCount(0);
    expect((await herald.seed.call('getSettings')).version).toBe(saved.version + 1);
    await alert.getByRole('button', { name: 'Reload' }).click();
    await expect(alert).toHaveCount(0);
    // The form now shows their version (the second factor off), and saves over it.
    await expect(settings.switch('Require a second factor')).not.toBeChecked();
    await settings.switch('Require a second factor').check();
    await settings.save();
    await expect(settings.saved()).toBeVisible();
    expect(await herald.seed.call('getSettings')).toMatchObject({ require_second_factor: true, version: saved.version + 2 });

    // admins_only needs single sign-on: the service refuses it, and the page says why on the field.
    await page.getByRole('radio', { name: /Only admins may sign in/ }).check();
    await settings.save();
    await expect(page.getByRole('radiogroup', { name: 'Password sign-in' })).toHaveAccessibleDescription(/admins_only/);
    await checkA11y(page);
    expect((await herald.seed.call('getSettings')).password_sign_in).toBe('everyone');
  } finally {
    const now = await herald.seed.call('getSettings');
    await herald.seed.call('updateSettings', { body: { version: now.version, require_second_factor: false, password_sign_in: 'everyone' } });
  }
});

test.describe('single sign-on', () => {
  let peer: OidcPeer;
  test.beforeAll(async ({ herald }) => {
    peer = await startOidcPeer({
      clients: [{ client_id: 'herald-ui', client_secret: 'a client secret', redirect_uris: [`${herald.url}/api/v1/auth/oidc/callback`] }],
    });
  });
  test.afterAll(async ({ herald }) => {
    const now = await herald.seed.call('getOidcSettings');
    await herald.seed.call('replaceOidcSettings', { body: { enabled: false, client_secret: null, version: now.version } });
    await peer.close();
  });

  test('is configured against the OpenID provider on loopback: discovery test, redirect URI to copy, then a wrong issuer shows the provider\'s error', async ({ page, context, herald }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: herald.url });
    // Start from no single sign-on and no stored secret (auth.spec, on the same Herald, may have set one).
    const before = await herald.seed.call('getOidcSettings');
    await herald.seed.call('replaceOidcSettings', { body: { version: before.version, enabled: false, client_secret: null } });
    await signIn(page);
    const settings = new SettingsPage(page);
    await settings.open('sso');
    await expect(settings.heading('Single sign-on (OpenID Connect)')).toBeVisible();
    const redirect = `${herald.url}/api/v1/auth/oidc/callback`;
    await expect(page.getByRole('textbox', { name: 'Redirect URI' })).toHaveValue(redirect);
    await page.getByRole('button', { name: 'Copy the redirect URI' }).click();
    await expect(page.getByRole('button', { name: 'Copy the redirect URI' })).toHaveText('Copied');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(redirect);

    await page.getByRole('textbox', { name: 'Issuer URL' }).fill(peer.issuer);
    await page.getByRole('button', { name: 'Test discovery' }).click();
    const ok = page.getByRole('status').filter({ hasText: 'The provider answered' });
    await expect(ok).toContainText(`${peer.issuer}/auth`);
    await expect(ok).toContainText(`${peer.issuer}/token`);
    await checkA11y(page);

    await page.getByRole('textbox', { name: 'Client ID' }).fill('herald-ui');
    await page.getByLabel('Client secret').fill('a client secret');
    await page.getByRole('textbox', { name: 'Button label on the sign-in page' }).fill('Sign in with Loopback ID');
    await settings.switch('Single sign-on is on').check();
    await settings.save();
    await expect(settings.saved()).toBeVisible();
    // The secret is stored, never shown: Configured, with Replace and Remove.
    await expect(page.getByText('Configured', { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Replace Client secret' })).toBeVisible();
    expect(await herald.seed.call('getOidcSettings')).toMatchObject({
      enabled: true, issuer_url: peer.issuer, client_id: 'herald-ui', client_secret: { configured: true }, button_label: 'Sign in with Loopback ID',
    });
    // Sign-in through it now leads to the provider.
    const login = await page.request.get('/api/v1/auth/oidc/login', { maxRedirects: 0 });
    expect(login.status()).toBe(302);
    expect(login.headers().location).toContain(`${peer.issuer}/auth?`);
    await screen(page, 'sso');

    // A wrong issuer: the test shows what the provider answered, as the server reports it.
    const wrong = `${peer.issuer}/not-the-issuer`;
    const expected = await herald.seed.call('testOidcSettings', { body: { issuer_url: wrong } }).then(
      () => { throw new Error('the wrong issuer passed the discovery test'); },
      (error: unknown) => error as HeraldError,
    );
    expect(expected.code).toBe('oidc.discovery_failed');
    await page.getByRole('textbox', { name: 'Issuer URL' }).fill(wrong);
    await page.getByRole('button', { name: 'Test discovery' }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'The discovery document could not be read' });
    await expect(failed).toContainText(expected.detail!);
    await checkA11y(page);
  });
});

test('the AI assistant is tested against an OpenAI-compatible server on loopback, then saved with its key kept secret', async ({ page, herald }) => {
  const ai: OpenAiPeer = await openAiPeer({ apiKey: 'sk-ui-test' });
  // Start from no assistant and no stored key (queries.spec, on the same Herald, may have set one).
  const before = await herald.seed.call('getAiSettings');
  await herald.seed.call('replaceAiSettings', { body: { version: before.version, provider: 'off', api_key: null } });
  try {
    await signIn(page);
    const settings = new SettingsPage(page);
    await settings.open('ai');
    await expect(settings.heading('AI assistant')).toBeVisible();
    await settings.choose('Provider', 'OpenAI or compatible (Ollama, LM Studio, vLLM, OpenRouter, Azure OpenAI)');
    await page.getByRole('textbox', { name: 'Model' }).fill('gpt-ui-test');
    await page.getByRole('textbox', { name: 'Address (base URL)' }).fill(ai.baseUrl);
    await page.getByLabel('API key').fill('sk-wrong');
    await page.getByRole('button', { name: 'Test these settings' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'The provider did not answer as it should' })).toContainText('ai.auth_failed');

    await page.getByLabel('API key').fill('sk-ui-test');
    ai.script.push(ai.answerJson({ ok: true }));
    await page.getByRole('button', { name: 'Test these settings' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'The provider answered' })).toContainText('Model gpt-ui-test answered');
    await checkA11y(page);
    await settings.save();
    await expect(settings.saved()).toBeVisible();
    await expect(page.getByRole('button', { name: 'Replace API key' })).toBeVisible();
    await screen(page, 'ai');
    const saved = await herald.seed.call('getAiSettings');
    expect(saved).toMatchObject({ provider: 'openai', model: 'gpt-ui-test', base_url: ai.baseUrl, api_key: { configured: true } });
  } finally {
    const now = await herald.seed.call('getAiSettings');
    await herald.seed.call('replaceAiSettings', { body: { provider: 'off', api_key: null, model: null, base_url: null, version: now.version } });
    await ai.close();
  }
});

test('alerts go to a webhook channel and the heartbeat: saved, tested to the loopback receiver, and shown in the status', async ({ page, herald }) => {
  const channel = await herald.seed.call('createChannel', {
    body: { name: 'Ops alerts', type: 'webhook', settings: { url: `${herald.webhook.url}/ui-alerts` } },
  });
  try {
    await signIn(page);
    const settings = new SettingsPage(page);
    await settings.open('alerts');
    await expect(settings.heading('System alerts and heartbeat')).toBeVisible();
    // The open problems as the API has them (other specs share this Herald: a failing channel is one).
    const open = (await herald.seed.call('listSystemProblems', { query: { state: 'open' } })).items;
    if (open.length === 0) await expect(page.getByText('No open problem. All is well.')).toBeVisible();
    else await expect(page.getByRole('table', { name: 'System problems' }).getByRole('row').filter({ hasText: open[0]!.message }).first()).toBeVisible();
    await settings.choose('Alert channels', 'Ops alerts');
    await settings.switch('Call a heartbeat URL while Herald is healthy').check();
    await page.getByLabel('Heartbeat URL', { exact: true }).fill(`${herald.webhook.url}/ui-heartbeat`);
    await page.getByRole('textbox', { name: 'Every (seconds)' }).fill('3600');
    await settings.save();
    await expect(settings.saved()).toBeVisible();
    expect(await herald.seed.call('getAlertSettings')).toMatchObject({
      channel_ids: [channel.id], heartbeat: { url: { configured: true }, method: 'GET', interval_seconds: 3600 },
    });
    await checkA11y(page);

    await page.getByRole('button', { name: 'Send a test alert' }).click();
    const results = page.getByRole('table', { name: 'Test results' });
    await expect(results.getByRole('row').filter({ hasText: 'Ops alerts' })).toContainText('Sent');
    await expect(results.getByRole('row').filter({ hasText: 'Heartbeat' })).toContainText('HTTP 200');
    const sent = herald.webhook.requests.filter((r) => r.path === '/ui-alerts');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe('POST');
    expect(herald.webhook.requests.some((r) => r.path === '/ui-heartbeat')).toBe(true);
    // The status shows the channel's last send.
    const status = page.getByRole('table', { name: 'Alert channels: last send and last error' });
    await expect(status.getByRole('row').filter({ hasText: 'Ops alerts' })).not.toContainText('—\u00a0—');
    await expect(status.getByRole('row').filter({ hasText: 'Ops alerts' }).getByRole('cell').nth(1).locator('time')).toBeVisible();
    await screen(page, 'alerts');

    // A receiver that refuses: each target's row says Failed in full (not cut by the column) with the reason.
    herald.webhook.script.push(...Array.from({ length: 6 }, () => ({ status: 500, body: 'down for the test' })));
    try {
      await page.getByRole('button', { name: 'Send a test alert' }).click();
      const failedRow = results.getByRole('row').filter({ hasText: 'Ops alerts' });
      await expect(failedRow).toContainText('Failed');
      const badge = failedRow.getByText('Failed', { exact: true });
      expect(await badge.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    } finally {
      herald.webhook.script.length = 0;
    }
  } finally {
    const now = await herald.seed.call('getAlertSettings');
    await herald.seed.call('replaceAlertSettings', { body: { channel_ids: [], fallback_channel_id: null, heartbeat: null, version: now.version } });
    await herald.seed.call('deleteChannel', { path: { channelId: channel.id } });
  }
});

test('storage and about show where results are kept and which version runs', async ({ page, herald }) => {
  await signIn(page);
  const settings = new SettingsPage(page);
  await settings.open('storage');
  await expect(settings.heading('Storage and retention')).toBeVisible();
  const storage = await herald.seed.call('getStorage');
  await expect(page.getByRole('row', { name: /Kept in/ })).toContainText('Local folder');
  await expect(page.getByRole('row', { name: /Location/ })).toContainText(storage.location);
  await expect(page.getByRole('row', { name: /Retention/ })).toContainText(`${storage.retention_days} days`);
  await checkA11y(page);
  await screen(page, 'storage');
  await settings.tab('About');
  await expect(page).toHaveURL(/\/settings\/about$/);
  const about = await herald.seed.call('getAbout');
  await expect(page.getByRole('row', { name: /^Version/ })).toContainText(about.version);
  await expect(page.getByRole('row', { name: /Roles of this process/ })).toContainText('api');
  await checkA11y(page);
});

test('an editor sees no settings entry, and the page opened by its address says it is for admins', async ({ page, herald }) => {
  const editor = await herald.user('editor', 'Eddie Editor');
  await signIn(page, editor);
  await page.goto('/');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Dashboard' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Settings' })).toHaveCount(0);
  await expect(nav.getByRole('link', { name: 'Configuration as code' })).toHaveCount(0);
  await page.goto('/settings/sso');
  await expect(page.getByText('Only administrators can see and change the settings.')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Issuer URL' })).toHaveCount(0);
  await checkA11y(page);
});
