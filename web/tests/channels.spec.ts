/**
 * Channels in the browser, against a real Herald: a webhook channel made from its plugin's form
 * with a test message the receiver gets before saving, an email channel whose test reaches the
 * SMTP peer, a refused test with the receiver's own answer shown, secret headers kept as
 * "Configured" on edit (and asked for again when the address moves), a change made meanwhile, a
 * failed delivery resent by "Retry failed" (what it queued shown, the receiver gets it), delete of
 * a channel in use listing its report, and what viewers and editors may do; axe on every page.
 */
import { test, expect, signIn, checkA11y, ADMIN } from './support/fixtures.js';
import { screen } from './support/screens.js';
import { arrangeRuns, finished, queueRun, ITEMS_SQL, type RunsData } from './support/runs-data.js';
import { ChannelsPage } from './pages/ChannelsPage.js';
import { httpPeer, type HttpPeer } from '../../tests/support/peers.js';
import { startHerald } from './support/herald.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

// Pages walked with axe more than once on a loaded machine.
test.describe.configure({ timeout: 120_000 });

let failing: HttpPeer;

test.beforeAll(async () => {
  failing = await httpPeer();
  failing.fallback = { status: 500, body: 'receiver down for maintenance' };
});
test.afterAll(async () => { await failing?.close(); });

const hookRequests = (peer: HttpPeer, path: string) => peer.requests.filter((r) => r.path === path);

test('with no channel yet the list leads to "Add channel"; an admin makes a webhook channel, its test message received before saving', async ({ page, herald }) => {
  await signIn(page);
  const channels = new ChannelsPage(page);
  await channels.gotoList();
  await expect(page.getByText('No channel yet.')).toBeVisible();
  await checkA11y(page);
  await page.getByRole('link', { name: 'Add channel' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New channel' })).toBeVisible();

  await channels.field('Name').fill('Ops hook');
  await channels.choose('Type', 'Webhook', channels.form);
  // The plugin's own labels and help (its translations).
  await expect(channels.form.getByText('The address (https, best) that receives each delivery as a JSON POST.')).toBeVisible();
  await channels.field('URL').fill(`${herald.webhook.url}/ops`);
  await channels.form.getByRole('textbox', { name: 'Headers: name 1' }).fill('Authorization');
  await channels.form.getByLabel('Headers: value 1').fill('Bearer s3cret');
  await checkA11y(page);

  await channels.button('Send test message').click();
  await expect(channels.testOutcome()).toContainText('The receiver accepted the test message');
  await expect(channels.testOutcome()).toContainText('Answer 200');
  const tested = hookRequests(herald.webhook, '/ops');
  expect(tested).toHaveLength(1);
  expect(tested[0]!.headers.authorization).toBe('Bearer s3cret');
  expect(tested[0]!.body).toContain('Herald test message');
  await screen(page, 'web-channels-new');

  await channels.button('Create channel').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Ops hook' })).toBeVisible();
  await expect(page).toHaveURL(/\/channels\/[0-9a-f-]{36}$/);
  const channelId = page.url().split('/').pop()!;
  expect(await herald.seed.call('getChannel', { path: { channelId } })).toMatchObject({
    name: 'Ops hook', type: 'webhook', health: 'unknown', settings: { url: `${herald.webhook.url}/ops`, headers: { configured: true } },
  });
  await expect(channels.health).toContainText('Unknown');
  await expect(channels.health).toContainText('Nothing was delivered through this channel yet.');
  await expect(channels.form.getByText('Configured')).toBeVisible();
  await checkA11y(page);
  await screen(page, 'web-channels-channel');

  await channels.gotoList();
  await expect(channels.row('Ops hook')).toContainText('Webhook');
  await expect(channels.row('Ops hook')).toContainText('Unknown');
  await screen(page, 'web-channels-list');
});

test('an email channel to the SMTP peer: its test goes to the admin’s own address', async ({ page, herald }) => {
  await signIn(page);
  const channels = new ChannelsPage(page);
  await channels.startNew('Channels team mail', 'Email');
  await channels.field('SMTP host').fill('127.0.0.1');
  await channels.form.getByRole('textbox', { name: 'Port' }).fill(String(herald.smtp.port));
  await channels.choose('TLS', 'none', channels.form);
  await channels.field('From').fill('Herald <herald@example.com>');
  await expect(channels.form.getByText(`The test email goes to your own address, ${ADMIN.email}.`)).toBeVisible();
  await checkA11y(page);
  const before = herald.smtp.messages.length;
  await channels.button('Send test message').click();
  await expect(channels.testOutcome()).toContainText(`The test message was sent to ${ADMIN.email}`);
  await expect.poll(() => herald.smtp.messages.length).toBe(before + 1);
  const mail = herald.smtp.messages[before]!;
  expect(mail.subject).toBe('Herald test message');
  expect(herald.smtp.envelopes[before]!.to).toEqual([ADMIN.email]);

  await channels.button('Create channel').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Channels team mail' })).toBeVisible();
  const channelId = page.url().split('/').pop()!;
  expect((await herald.seed.call('getChannel', { path: { channelId } })).settings).toMatchObject({ host: '127.0.0.1', port: herald.smtp.port, tls: 'none' });
});

test('a refused test shows the receiver’s answer; a bad address lands on its field', async ({ page }) => {
  await signIn(page);
  const channels = new ChannelsPage(page);
  await channels.startNew('Broken hook', 'Webhook');
  await channels.field('URL').fill('not an address');
  await channels.button('Create channel').click();
  await expect(channels.field('URL')).toHaveAttribute('aria-invalid', 'true');
  await expect(channels.field('URL')).toHaveAccessibleDescription(/must match format "uri"/);
  await expect(page.getByRole('heading', { level: 1, name: 'New channel' })).toBeVisible();

  await channels.field('URL').fill(`${failing.url}/down`);
  await channels.button('Send test message').click();
  const outcome = channels.testOutcome();
  await expect(outcome).toContainText('The test message was not sent');
  await expect(outcome).toContainText('HTTP 500');
  await expect(outcome).toContainText('receiver down for maintenance');
  await expect(outcome).toContainText('delivery.');
  expect(hookRequests(failing, '/down').length).toBeGreaterThanOrEqual(1);
  await checkA11y(page);
  await screen(page, 'web-channels-test-failed');
});

test('secret headers stay "Configured" on edit; moving the address asks for them again on their field', async ({ page, herald }) => {
  const seeded = await herald.seed.call('createChannel', {
    body: { name: 'Signed hook', type: 'webhook', settings: { url: `${herald.webhook.url}/signed`, headers: { 'X-Token': 'tok-123' } } },
  });
  await signIn(page);
  const channels = new ChannelsPage(page);
  await channels.goto(seeded.id, 'Signed hook');
  await expect(channels.form.getByText('Configured').first()).toBeVisible();
  await expect(channels.button('Replace Headers')).toBeVisible();
  await expect(channels.button('Remove Headers')).toBeVisible();
  await expect(channels.form.getByText('tok-123')).toHaveCount(0);

  await expect(channels.button('Test with these changes')).toHaveCount(0);
  await channels.field('Name').fill('Signed hook (ops)');
  // Unsaved changes are tried over the stored settings: the stored header goes along.
  await channels.button('Test with these changes').click();
  await expect(channels.testOutcome()).toContainText('The receiver accepted the test message');
  expect(hookRequests(herald.webhook, '/signed').at(-1)!.headers['x-token']).toBe('tok-123');
  await channels.button('Save channel').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Signed hook (ops)' })).toBeVisible();
  await expect(channels.button('Replace Headers')).toBeVisible();
  // The header was kept: a test through the saved channel carries it.
  const seen = hookRequests(herald.webhook, '/signed').length;
  await channels.operations.getByRole('button', { name: 'Send a test message through Signed hook (ops)' }).click();
  await expect(channels.testOutcome(channels.operations)).toContainText('The receiver accepted the test message');
  const sent = hookRequests(herald.webhook, '/signed');
  expect(sent).toHaveLength(seen + 1);
  expect(sent.at(-1)!.headers['x-token']).toBe('tok-123');

  // Another address with the stored header: the API asks for it again, on the Headers field.
  await channels.field('URL').fill(`${herald.webhook.url}/elsewhere`);
  await channels.button('Save channel').click();
  await expect(channels.form.getByText('send the secret again when the destination changes').first()).toBeVisible();
  await checkA11y(page);
  await channels.button('Replace Headers').click();
  await channels.form.getByRole('textbox', { name: 'Headers: name 1' }).fill('X-Token');
  await channels.form.getByLabel('Headers: value 1').fill('tok-456');
  await channels.button('Save channel').click();
  await expect(channels.button('Replace Headers')).toBeVisible();
  expect((await herald.seed.call('getChannel', { path: { channelId: seeded.id } })).settings).toMatchObject({ url: `${herald.webhook.url}/elsewhere`, headers: { configured: true } });
});

test('a change made meanwhile is answered with a reload', async ({ page, herald }) => {
  const seeded = await herald.seed.call('createChannel', { body: { name: 'Shared hook', type: 'webhook', settings: { url: `${herald.webhook.url}/shared` } } });
  await signIn(page);
  const channels = new ChannelsPage(page);
  await channels.goto(seeded.id, 'Shared hook');
  await channels.field('Name').fill('Shared hook (mine)');
  await herald.seed.call('updateChannel', { path: { channelId: seeded.id }, body: { name: 'Shared hook (theirs)', version: seeded.version } });
  await channels.button('Save channel').click();
  const alert = page.getByRole('alert').filter({ hasText: 'Someone changed this meanwhile' });
  await expect(alert).toBeVisible();
  await alert.getByRole('button', { name: 'Reload' }).click();
  await expect(channels.field('Name')).toHaveValue('Shared hook (theirs)');
  await expect(page.getByRole('heading', { level: 1, name: 'Shared hook (theirs)' })).toBeVisible();
});

test('a channel an import made carries the managed badge in the list and beside its title', async ({ page, herald }) => {
  const yaml = `apiVersion: herald/v1\nkind: Channel\nmetadata:\n  name: channels-imported-hook\nspec:\n  name: Channels imported hook\n  type: webhook\n  settings:\n    url: ${herald.webhook.url}/imported\n`;
  expect((await herald.seed.call('importConfig', { body: { yaml, mode: 'apply' } })).applied).toBe(true);
  const made = (await herald.seed.call('listChannels', { query: { limit: 200 } })).items.find((c) => c.key === 'channels-imported-hook')!;
  expect(made).toMatchObject({ name: 'Channels imported hook', type: 'webhook' });
  expect(made.managed).toMatchObject({ by: 'import' });
  expect((await herald.seed.call('getChannel', { path: { channelId: made.id } })).managed).toMatchObject({ by: 'import' });
  await signIn(page);
  const channels = new ChannelsPage(page);
  await channels.gotoList();
  await expect(channels.row('Channels imported hook').getByText('Imported', { exact: true })).toBeVisible();
  await channels.goto(made.id, 'Channels imported hook');
  const header = page.getByRole('heading', { level: 1, name: 'Channels imported hook' }).locator('..');
  await expect(header.getByText('Imported', { exact: true })).toBeVisible();
  // An import does not lock the channel: an admin still changes it here.
  await expect(channels.button('Save channel')).toBeVisible();
  await checkA11y(page);
  await screen(page, 'web-channels-imported');
});

test('a channel the configuration directory manages: the badge names its file, nothing changes it until an admin detaches it', async ({ page }) => {
  test.setTimeout(240_000); // a Herald of its own, with SVC_GITOPS_DIR
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-ui-channels-'));
  const file = path.join(dir, 'channels.yaml');
  await writeFile(file, 'apiVersion: herald/v1\nkind: Channel\nmetadata:\n  name: gitops-hook\nspec:\n  name: Gitops hook\n  type: webhook\n  settings:\n    url: https://hooks.example.com/gitops\n');
  const g = await startHerald({ env: { SVC_GITOPS_DIR: dir } });
  try {
    // The scheduler reads the directory at start.
    let channelId: string | undefined;
    await expect.poll(async () => {
      channelId = (await g.seed.call('listChannels')).items.find((c) => c.key === 'gitops-hook')?.id;
      return channelId;
    }, { timeout: 60_000 }).toBeTruthy();
    const res = await page.request.post(`${g.url}/api/v1/auth/login`, { data: { email: ADMIN.email, password: ADMIN.password } });
    expect(res.status()).toBe(200);
    await page.goto(`${g.url}/channels/${channelId}`);
    const heading = page.getByRole('heading', { level: 1, name: 'Gitops hook' });
    await expect(heading).toBeVisible();
    const header = heading.locator('..');
    await expect(header).toContainText(`Managed by ${file}`);
    await expect(page.getByRole('note').filter({ hasText: 'The configuration directory manages this channel' })).toBeVisible();
    const channels = new ChannelsPage(page);
    await expect(channels.field('Name')).toBeDisabled();
    await expect(page.getByRole('button', { name: /^(Delete|Save channel)$/ })).toHaveCount(0);
    await checkA11y(page);
    await screen(page, 'web-channels-managed');

    await header.getByRole('button', { name: 'Detach Gitops hook' }).click();
    await page.getByRole('dialog', { name: 'Detach Gitops hook?' }).getByRole('button', { name: 'Detach', exact: true }).click();
    await expect(header).toContainText(`Detached from ${file}`);
    await expect(channels.field('Name')).toBeEnabled();
    await expect(channels.button('Delete')).toBeVisible();
    await channels.field('Name').fill('Gitops hook (detached)');
    await channels.button('Save channel').click();
    await expect(page.getByRole('heading', { level: 1, name: 'Gitops hook (detached)' })).toBeVisible();
    await expect(page.getByRole('heading', { level: 1, name: 'Gitops hook (detached)' }).locator('..')).toContainText(`Detached from ${file}`);
  } finally {
    await g.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test.describe('with deliveries', () => {
  let data: RunsData;
  let reportId: string;
  test.beforeAll(async ({ herald }) => {
    data = await arrangeRuns(herald, 'Channels spec');
    reportId = await data.report('Channel items', ITEMS_SQL);
  });
  test.afterAll(async () => { await data?.drop(); });

  test('a failed delivery makes the channel failing; "Retry failed" shows what it queued and the receiver gets it', async ({ page, herald }) => {
    // One 500 with a Retry-After beyond the quick retries: the attempt fails now, its automatic retry is an hour away.
    herald.webhook.script.push({ status: 500, headers: { 'Retry-After': '3600' }, body: 'receiver down' });
    const runId = await queueRun(herald.seed, reportId);
    expect(await finished(herald.seed, runId)).toBe('failed');
    const before = herald.webhook.requests.filter((r) => r.body.includes(runId)).length;

    await signIn(page);
    const channels = new ChannelsPage(page);
    await channels.goto(data.channelId, data.channelName);
    await expect(channels.health).toContainText('Failing');
    await expect(channels.health).toContainText('delivery.');
    await expect(channels.health).toContainText('HTTP 500');
    // The latest attempts: this run's, failed, with the receiver's answer and the planned retry.
    const attempts = page.getByRole('table', { name: `Latest delivery attempts of ${data.channelName}` });
    const row = attempts.getByRole('row').filter({ has: page.getByRole('link', { name: 'Run of Channel items' }) }).first();
    await expect(row).toContainText('Failed');
    await expect(row).toContainText('HTTP 500');
    await expect(row).toContainText('Retried automatically at');
    await expect(row.getByRole('link', { name: 'Run of Channel items' })).toHaveAttribute('href', `/runs/${runId}`);
    await checkA11y(page);
    await screen(page, 'web-channels-failing');

    await channels.operations.getByRole('button', { name: `Retry the failed deliveries of ${data.channelName}` }).click();
    const queued = channels.operations.getByRole('status').filter({ hasText: 'queued for a resend' });
    await expect(queued).toContainText('1 failed delivery queued for a resend');
    const link = queued.getByRole('link', { name: 'Run, delivery 1' });
    await expect(link).toHaveAttribute('href', `/runs/${runId}`);
    await expect(queued).toContainText('HTTP 500');
    await screen(page, 'web-channels-retried', channels.operations);
    await expect.poll(() => herald.webhook.requests.filter((r) => r.body.includes(runId)).length, { timeout: 30_000 }).toBe(before + 1);
    // Live: the channel turns healthy once the resend is sent.
    await expect(channels.health).toContainText('Healthy', { timeout: 30_000 });
    // The same attempt, now sent: the list follows the run live.
    await expect(attempts.getByRole('row').filter({ has: page.locator(`a[href="/runs/${runId}"]`) })).toContainText('Sent');
    await checkA11y(page);

    // Nothing left to resend.
    await channels.operations.getByRole('button', { name: `Retry the failed deliveries of ${data.channelName}` }).click();
    await expect(channels.operations.getByRole('status').filter({ hasText: 'Nothing to resend' })).toBeVisible();
  });

  test('delete asks first; a channel in use lists its report, an unused one is deleted', async ({ page, herald }) => {
    await signIn(page);
    const channels = new ChannelsPage(page);
    await channels.goto(data.channelId, data.channelName);
    await channels.button('Delete').click();
    const dialog = page.getByRole('dialog', { name: `Delete ${data.channelName}?` });
    await expect(dialog).toContainText('Past delivery attempts keep its name.');
    await dialog.getByRole('button', { name: 'Delete channel' }).click();
    await expect(dialog.getByRole('alert')).toContainText('This channel is still used.');
    await expect(dialog.getByRole('link', { name: 'Channel items' })).toHaveAttribute('href', `/reports/${reportId}`);
    await checkA11y(page);
    await screen(page, 'web-channels-in-use', dialog);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    expect((await herald.seed.call('getChannel', { path: { channelId: data.channelId } })).name).toBe(data.channelName);

    const spare = await herald.seed.call('createChannel', { body: { name: 'Spare hook', type: 'webhook', settings: { url: `${herald.webhook.url}/spare` } } });
    await channels.goto(spare.id, 'Spare hook');
    await channels.button('Delete').click();
    await page.getByRole('dialog', { name: 'Delete Spare hook?' }).getByRole('button', { name: 'Delete channel' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Channels' })).toBeVisible();
    await expect(channels.row('Spare hook')).toHaveCount(0);
    await expect(herald.seed.call('getChannel', { path: { channelId: spare.id } })).rejects.toMatchObject({ status: 404 });
  });

  test('a viewer reads channels and sees no button that changes one', async ({ page, herald }) => {
    await signIn(page, await herald.user('viewer', 'Vic Viewer'));
    const channels = new ChannelsPage(page);
    await channels.gotoList();
    await expect(channels.row(data.channelName)).toBeVisible();
    await expect(page.getByRole('link', { name: 'Add channel' })).toHaveCount(0);
    await expect(page.getByRole('navigation').getByRole('link', { name: 'Channels' })).toBeVisible();
    await checkA11y(page);
    await channels.goto(data.channelId, data.channelName);
    await expect(channels.health).toBeVisible();
    await expect(channels.field('URL')).toBeDisabled();
    await expect(channels.operations).toHaveCount(0);
    await expect(page.getByRole('button', { name: /Send test message|Retry|Delete|Save channel|Replace|Remove/ })).toHaveCount(0);
    await checkA11y(page);
    await page.goto('/channels/new');
    await expect(page.getByText('This page is for the Administrator role.')).toBeVisible();
    await expect(channels.form).toHaveCount(0);
  });

  test('an editor tests a saved channel and may retry, but changes and deletes nothing', async ({ page, herald }) => {
    await signIn(page, await herald.user('editor', 'Edda Editor'));
    const channels = new ChannelsPage(page);
    await channels.gotoList();
    await expect(page.getByRole('link', { name: 'Add channel' })).toHaveCount(0);
    await channels.goto(data.channelId, data.channelName);
    await expect(channels.field('Name')).toBeDisabled();
    await expect(page.getByRole('button', { name: /^(Delete|Save channel|Replace|Remove)/ })).toHaveCount(0);
    await expect(channels.operations.getByRole('button', { name: `Retry the failed deliveries of ${data.channelName}` })).toBeVisible();
    const seen = hookRequests(herald.webhook, '/hook').length;
    await channels.operations.getByRole('button', { name: `Send a test message through ${data.channelName}` }).click();
    await expect(channels.testOutcome(channels.operations)).toContainText('The receiver accepted the test message');
    expect(hookRequests(herald.webhook, '/hook')).toHaveLength(seen + 1);
    await checkA11y(page);
  });
});
