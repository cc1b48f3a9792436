/**
 * Configuration as code as an admin uses it, against a real Herald: an export chosen by kind and by
 * resource, downloaded (the browser's download, parsed as YAML); an import pasted, planned as a
 * diff per resource, applied (the resource exists afterwards through the API), planned again as an
 * update, and refused with the document and line when it does not validate; and a configuration
 * directory (a second Herald with SVC_GITOPS_DIR) with its status, the "managed by" badge, detach,
 * a change made meanwhile shown as drift, attach with the changes the next sync makes, and a broken
 * file's problems. An editor gets no configuration page. axe on every page.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { parseAllDocuments } from 'yaml';
import { test, expect, signIn, checkA11y, ADMIN } from './support/fixtures.js';
import { startHerald } from './support/herald.js';
import { createPostgresSource } from '../../tests/support/user-databases.js';
import type { CallParams } from '../../sdk/src/index.js';
import { ConfigPage } from './pages/ConfigPage.js';

async function screen(page: Page, name: string): Promise<void> {
  const dir = process.env.HERALD_SCREENS;
  if (!dir) return;
  const size = page.viewportSize() ?? { width: 1280, height: 720 };
  const height = await page.evaluate<number>('document.documentElement.scrollHeight');
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await page.screenshot({ path: `${dir}/web-settings-${name}.png` });
  await page.setViewportSize(size);
}

interface Doc { apiVersion: string; kind: string; metadata: { name: string }; spec: Record<string, unknown> }
const documents = (text: string): Doc[] => parseAllDocuments(text).map((d) => d.toJS() as Doc);

const channelYaml = (key: string, name: string, url: string) => `apiVersion: herald/v1
kind: Channel
metadata:
  name: ${key}
spec:
  name: ${name}
  type: webhook
  settings:
    url: ${url}
`;

test('an export by kind and by chosen resource downloads YAML with secrets only as configured', async ({ page, herald }) => {
  const suffix = Date.now().toString(36);
  const connection = await herald.seed.call('createConnection', {
    body: { name: `Shop ${suffix}`, type: 'postgres', host: '127.0.0.1', port: 5432, database: 'shop', username: 'reader', password: 'reader password', ssl_mode: 'disable' },
  });
  const channel = await herald.seed.call('createChannel', { body: { name: `Export hook ${suffix}`, type: 'webhook', settings: { url: `${herald.webhook.url}/export` } } });
  try {
    await signIn(page);
    const config = new ConfigPage(page);
    await config.open('resources');
    await expect(config.row(connection.name)).toContainText(connection.key);
    await expect(config.row(connection.name)).toContainText('The UI and API');
    await checkA11y(page);
    await screen(page, 'config-resources');

    const all = await config.download();
    expect(all.download.suggestedFilename()).toMatch(/^herald-export-.*\.yaml$/);
    const docs = documents(all.text);
    expect(docs.find((d) => d.kind === 'Connection' && d.metadata.name === connection.key)).toMatchObject({
      apiVersion: 'herald/v1', spec: { name: connection.name, host: '127.0.0.1', password: { configured: true } },
    });
    expect(all.text).not.toContain('reader password');
    expect(docs.find((d) => d.kind === 'Channel' && d.metadata.name === channel.key)).toBeDefined();

    // Only one chosen resource.
    await config.kind('Channels');
    await config.row(channel.name).getByRole('checkbox', { name: `Export ${channel.name}` }).check();
    await expect(page.getByText('1 chosen resource will be exported')).toBeVisible();
    const one = documents((await config.download()).text);
    expect(one.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([`Channel/${channel.key}`]);
    await expect(page.getByRole('status').filter({ hasText: 'Downloaded' })).toBeVisible();
  } finally {
    await herald.seed.call('deleteChannel', { path: { channelId: channel.id } });
    await herald.seed.call('deleteConnection', { path: { connectionId: connection.id } });
  }
});

test('an import is planned as a diff per resource, applied, planned again as an update, and a broken document is refused with its line', async ({ page, herald }) => {
  const key = `imported-${Date.now().toString(36)}`;
  await signIn(page);
  const config = new ConfigPage(page);
  await config.open('import');
  await checkA11y(page);
  try {
    await config.plan(channelYaml(key, 'Imported hook', `${herald.webhook.url}/imported`));
    const create = config.change('Create', 'Channel', key);
    await expect(create).toBeVisible();
    await expect(create.getByRole('row').filter({ hasText: 'spec.name' })).toContainText('Imported hook');
    await expect(create.getByRole('row').filter({ hasText: 'spec.settings' })).toContainText(`${herald.webhook.url}/imported`);
    await expect(page.getByText('1 to create')).toBeVisible();
    expect((await herald.seed.call('listChannels', { query: { limit: 200 } })).items.some((c) => c.key === key)).toBe(false);
    await checkA11y(page);
    await screen(page, 'config-import-plan');

    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Applied' })).toBeVisible();
    await expect(config.change('Create', 'Channel', key)).toBeVisible();
    const made = (await herald.seed.call('listChannels', { query: { limit: 200 } })).items.find((c) => c.key === key);
    expect(made).toMatchObject({ name: 'Imported hook', type: 'webhook' });

    // The same resource renamed: an update with the value now and after.
    await config.plan(channelYaml(key, 'Imported hook (renamed)', `${herald.webhook.url}/imported`));
    const update = config.change('Update', 'Channel', key);
    const row = update.getByRole('row').filter({ hasText: 'spec.name' });
    await expect(row.getByRole('cell').nth(1)).toHaveText('Imported hook');
    await expect(row.getByRole('cell').nth(2)).toHaveText('Imported hook (renamed)');
    await expect(update.getByRole('row').filter({ hasText: 'spec.settings' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Applied' })).toBeVisible();
    expect((await herald.seed.call('getChannel', { path: { channelId: made!.id } })).name).toBe('Imported hook (renamed)');

    // A document that does not validate: nothing is planned, the problem names the document and line.
    await config.plan(`${channelYaml(key, 'Imported hook (renamed)', `${herald.webhook.url}/imported`)}---\napiVersion: herald/v1\nkind: Channel\nmetadata:\n  name: broken\nspec:\n  name: Broken\n  type: webhook\n  colour: blue\n  settings:\n    url: ${herald.webhook.url}/x\n`);
    const refused = page.getByRole('alert').filter({ hasText: 'The YAML cannot be imported' });
    await expect(refused).toContainText('Document 2');
    await expect(refused).toContainText(/line \d+/);
    await expect(refused).toContainText('documents.1.spec.colour');
    await checkA11y(page);

    // The resources list marks what the import made.
    await page.getByRole('tab', { name: 'Resources and export' }).click();
    await config.kind('Channels');
    await expect(config.row('Imported hook (renamed)')).toContainText('Imported');
  } finally {
    const left = (await herald.seed.call('listChannels', { query: { limit: 200 } })).items.find((c) => c.key === key);
    if (left) await herald.seed.call('deleteChannel', { path: { channelId: left.id } });
  }
});

test('a configuration directory: its status, the managed badge, detach, drift, attach with what the next sync changes, and a broken file', async ({ page }) => {
  test.setTimeout(240_000); // a Herald of its own, with SVC_GITOPS_DIR
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-ui-gitops-'));
  const webhook = 'https://hooks.example.com/gitops';
  await writeFile(path.join(dir, 'channels.yaml'), channelYaml('gitops-hook', 'Gitops hook', webhook));
  const g = await startHerald({ env: { SVC_GITOPS_DIR: dir } });
  try {
    const res = await page.request.post(`${g.url}/api/v1/auth/login`, { data: { email: ADMIN.email, password: ADMIN.password } });
    expect(res.status()).toBe(200);
    const file = path.join(dir, 'channels.yaml');
    await page.goto(`${g.url}/config/gitops`);
    await expect(page.getByRole('heading', { level: 1, name: 'Configuration as code' })).toBeVisible();
    await expect(page.getByRole('row', { name: /Directory/ })).toContainText(dir);
    // The scheduler reads the directory at start: reload until it has.
    await expect(async () => {
      await page.reload();
      await expect(page.getByRole('row', { name: /Resources it manages/ })).toContainText('1', { timeout: 2_000 });
    }).toPass();
    await expect(page.getByRole('row', { name: /Result/ })).toContainText(/Applied changes|Nothing to change/);
    await checkA11y(page);

    await page.getByRole('tab', { name: 'Resources and export' }).click();
    const config = new ConfigPage(page);
    await config.kind('Channels');
    const row = config.row('Gitops hook');
    await expect(row).toContainText(`Managed by ${file}`);
    await row.getByRole('button', { name: 'Detach Gitops hook' }).click();
    const dialog = page.getByRole('dialog', { name: 'Detach Gitops hook?' });
    await expect(dialog).toContainText(file);
    await checkA11y(page);
    await dialog.getByRole('button', { name: 'Detach', exact: true }).click();
    await expect(dialog).toHaveCount(0);
    await expect(row).toContainText(`Detached from ${file}`);
    await screen(page, 'config-managed');

    // Changed through the API while detached: the directory's status shows the drift.
    const channelId = (await g.seed.call('listChannels')).items.find((c) => c.key === 'gitops-hook')!.id;
    const current = await g.seed.call('getChannel', { path: { channelId } });
    await g.seed.call('updateChannel', { path: { channelId }, body: { version: current.version, name: 'Gitops hook (changed in the UI)' } });
    await page.getByRole('tab', { name: 'Configuration directory' }).click();
    const drift = page.getByRole('region', { name: 'Drift of Channel gitops-hook' });
    const nameRow = drift.getByRole('row').filter({ hasText: 'spec.name' });
    await expect(nameRow.getByRole('cell').nth(1)).toHaveText('Gitops hook (changed in the UI)');
    await expect(nameRow.getByRole('cell').nth(2)).toHaveText('Gitops hook');
    await checkA11y(page);
    await screen(page, 'config-gitops-drift');

    // Attach: the drift before, the changes of the next sync after; then the directory's copy is back.
    await drift.getByRole('button', { name: 'Attach gitops-hook' }).click();
    const attach = page.getByRole('dialog', { name: 'Attach gitops-hook?' });
    await expect(attach.getByRole('row').filter({ hasText: 'spec.name' })).toContainText('Gitops hook (changed in the UI)');
    await attach.getByRole('button', { name: 'Attach', exact: true }).click();
    const attached = attach.getByRole('status').filter({ hasText: 'gitops-hook is attached again' });
    await expect(attached.getByRole('row').filter({ hasText: 'spec.name' })).toContainText('Gitops hook');
    await checkA11y(page);
    await attach.getByRole('button', { name: 'Done' }).click();
    await expect(attach).toHaveCount(0);
    await expect.poll(async () => (await g.seed.call('getChannel', { path: { channelId } })).name).toBe('Gitops hook');

    // A report the directory defines: its page shows the badge and offers running it, but nothing
    // that would change it (the API refuses those with gitops.managed) until an admin detaches it.
    const src = await createPostgresSource(async () => undefined);
    try {
      const connectionId = (await g.seed.call('createConnection', { body: src.connection('Gitops source') as CallParams<'createConnection'>['body'] })).id;
      await g.seed.call('createQuery', { body: { name: 'Gitops query', key: 'gitops-query', connection_id: connectionId, sql: 'select 1 as one' } });
      const reportsFile = path.join(dir, 'reports.yaml');
      await writeFile(reportsFile, 'apiVersion: herald/v1\nkind: Report\nmetadata:\n  name: gitops-daily\nspec:\n  title: Gitops daily\n  query: gitops-query\n  schedule:\n    cron: \'0 7 * * *\'\n    timezone: UTC\n');
      let reportId = '';
      await expect.poll(async () => {
        reportId = (await g.seed.call('listReports', { query: { limit: 200 } })).items.find((r) => r.title === 'Gitops daily')?.id ?? '';
        return reportId;
      }, { timeout: 30_000 }).not.toBe('');
      // The list shows it too (lists carry `managed`).
      await page.goto(`${g.url}/reports`);
      await expect(page.getByRole('row').filter({ hasText: 'Gitops daily' })).toContainText(`Managed by ${reportsFile}`);
      await page.goto(`${g.url}/reports/${reportId}`);
      await expect(page.getByRole('heading', { level: 1, name: 'Gitops daily' })).toBeVisible();
      await expect(page.getByText(`Managed by ${reportsFile}`)).toBeVisible();
      await expect(page.getByRole('status').filter({ hasText: 'Managed by the configuration directory' })).toContainText(reportsFile);
      await expect(page.getByRole('button', { name: 'Run now' })).toBeVisible();
      for (const name of ['Pause', 'Delete', 'Save', 'Add delivery']) await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
      await expect(page.getByRole('textbox', { name: 'Title' })).toBeDisabled();
      await checkA11y(page);
      await page.getByRole('button', { name: 'Detach Gitops daily' }).click();
      await page.getByRole('dialog', { name: 'Detach Gitops daily?' }).getByRole('button', { name: 'Detach', exact: true }).click();
      await expect(page.getByText(`Detached from ${reportsFile}`)).toBeVisible();
      await expect(page.getByRole('button', { name: 'Pause', exact: true })).toBeVisible();
      await expect(page.getByRole('textbox', { name: 'Title' })).toBeEnabled();
    } finally {
      await src.drop();
    }
    await page.goto(`${g.url}/config/gitops`);

    // A broken file: nothing applied, its problems by file and line.
    const broken = path.join(dir, 'zz-broken.yaml');
    await writeFile(broken, 'apiVersion: herald/v1\nkind: Channel\nmetadata:\n  name: broken\nspec:\n  name: Broken\n  type: webhook\n  colour: blue\n  settings:\n    url: https://hooks.example.com/x\n');
    await expect(async () => {
      await page.reload();
      await expect(page.getByRole('row', { name: /Result/ })).toContainText('Failed: nothing applied', { timeout: 2_000 });
    }).toPass();
    const errors = page.getByRole('table', { name: 'Problems of the last reading, by file' });
    await expect(errors.getByRole('row').filter({ hasText: broken })).toContainText('spec.colour');
    await checkA11y(page);
    await screen(page, 'config-gitops-failed');
  } finally {
    await g.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('an editor gets no configuration page', async ({ page, herald }) => {
  const editor = await herald.user('editor', 'Edna Editor');
  await signIn(page, editor);
  await page.goto('/config/import');
  await expect(page.getByRole('heading', { level: 1, name: 'Configuration as code' })).toBeVisible();
  await expect(page.getByText('Only administrators can import configuration and manage the configuration directory.')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'YAML documents' })).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Configuration as code' })).toHaveCount(0);
  await checkA11y(page);
});
