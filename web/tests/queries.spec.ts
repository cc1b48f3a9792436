/**
 * Queries in the browser against a real Herald and a real PostgreSQL "user database" (1,200
 * orders): an editor writes a query with the completion offering a real table, declares its
 * parameter, previews 1,000 rows and scrolls to the last, saves; an edit makes a second version,
 * the versions page shows both with their differences and restores the first; a change made
 * meanwhile answers "changed meanwhile" with reload; delete asks first and names the reports that
 * use a query; the assistant proposes SQL for review when it is configured; a viewer reads without
 * edit controls; the list loads more. axe on every page.
 */
import type { Page } from '@playwright/test';
import type { CallParams } from '../../sdk/src/index.js';
import { createPostgresSource, type PostgresSource } from '../../tests/support/user-databases.js';
import { openAiPeer, type OpenAiPeer } from '../../tests/support/ai-peers.js';
import { test, expect, signIn, checkA11y } from './support/fixtures.js';
import type { RunningHerald } from './support/herald.js';
import { QueriesPage } from './pages/QueriesPage.js';

/** Screenshots for people to look at, only when HERALD_SCREENS names a folder (outside the repo). */
const SCREENS = process.env.HERALD_SCREENS;

/** The page in a tall window, for the README (a full-page shot would repeat the fixed header). */
async function screenshot(page: Page, name: string, height = 1000): Promise<void> {
  if (!SCREENS) return;
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 1280, height });
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: `${SCREENS}/web-queries-${name}.png` });
  await page.setViewportSize(size);
}
let src: PostgresSource;
let connectionId: string;
type User = Awaited<ReturnType<RunningHerald['user']>>;
let editor: User;
let viewer: User;

const connectionBody = (name: string) => src.connection(name) as CallParams<'createConnection'>['body'];

async function seedQuery(herald: RunningHerald, body: Omit<CallParams<'createQuery'>['body'], 'connection_id'>) {
  return herald.seed.call('createQuery', { body: { ...body, connection_id: connectionId } });
}

test.beforeAll(async ({ herald }) => {
  test.setTimeout(120_000); // a user database, a connection, two users (bcrypt) on a busy machine
  src = await createPostgresSource(async (sql) => {
    await sql`create table orders (id int primary key, status text not null, total numeric(12,2) not null, placed_on date not null, note text)`;
    await sql`insert into orders select g, case when g % 3 = 0 then 'open' else 'shipped' end, g * 1.25, date '2026-01-01' + (g % 90), case when g % 7 = 0 then null else 'order ' || g end from generate_series(1, 1200) g`;
    await sql`create table customers (id int primary key, name text not null)`;
  });
  connectionId = (await herald.seed.call('createConnection', { body: connectionBody('Sales warehouse') })).id;
  await herald.seed.call('refreshConnectionSchema', { path: { connectionId } });
  editor = await herald.user('editor', 'Edna Editor');
  viewer = await herald.user('viewer', 'Vera Viewer');
});

test.afterAll(async () => {
  await src?.drop();
});

test('an editor writes a query with completion offered for a real table, declares its parameter and saves it', async ({ page, herald }) => {
  // A connection whose schema nobody has read yet: the editor reads it from the page.
  await herald.seed.call('createConnection', { body: connectionBody('Orders archive') });
  await signIn(page, editor);
  const q = new QueriesPage(page);
  await q.gotoList();
  await page.getByRole('link', { name: 'New query' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New query' })).toBeVisible();
  await q.name.fill('Large orders');
  await q.choose('Connection', 'Orders archive (postgres)');
  await expect(page.getByText('has not been read yet')).toBeVisible();
  await page.getByRole('button', { name: 'Read schema' }).click();
  await expect(page.getByText('Completion knows 2 tables and views')).toBeVisible();
  // The assistant is not configured: its button is not there.
  await expect(page.getByRole('button', { name: 'Ask the assistant' })).toHaveCount(0);

  await q.sql.click();
  await q.sql.pressSequentially('select id, status, total, note from ord');
  const option = page.getByRole('option', { name: /^orders/ });
  await expect(option).toBeVisible();
  await option.click();
  await page.keyboard.insertText(' where total > {{ min_total }} order by id');
  await page.keyboard.press('Escape');
  await expect(q.sql).toContainText('select id, status, total, note from orders where total > {{ min_total }} order by id');

  await page.getByRole('button', { name: 'Declare min_total' }).click();
  const parameter = q.parameter('min_total');
  await q.choose('Type', 'Number', parameter);
  await parameter.getByLabel('Default').fill('0');
  await expect(page.getByLabel('Value of min_total')).toHaveValue('0');
  await checkA11y(page);
  await q.runPreview('1,000');
  await expect(q.result).toBeVisible();

  await q.save.click();
  await expect(page.getByText('Query “Large orders” created.')).toBeVisible();
  await expect(page).toHaveURL(/\/queries\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Large orders' })).toBeVisible();
  // The preview made before the first save is still there on the query's own page.
  await expect(q.result).toBeVisible();
  const id = page.url().split('/').pop()!;
  const saved = await herald.seed.call('getQuery', { path: { queryId: id } });
  expect(saved).toMatchObject({
    sql: 'select id, status, total, note from orders where total > {{ min_total }} order by id',
    parameters: [{ name: 'min_total', type: 'number', default: 0, required: false }],
    current_version: 1,
  });
});

test('a preview shows 1,000 rows under its cap, virtualised, and scrolls to the last one', async ({ page, herald }) => {
  const created = await seedQuery(herald, {
    name: 'Orders over a total', sql: 'select id, status, total, note from orders where total > {{ min_total }} order by id',
    parameters: [{ name: 'min_total', type: 'number', default: 100 }],
  });
  await signIn(page, editor);
  const q = new QueriesPage(page);
  await q.goto(created.id, 'Orders over a total');
  await expect(page.getByLabel('Value of min_total')).toHaveValue('100');
  await page.getByLabel('Value of min_total').fill('0');
  await q.runPreview('1,000');
  await expect(page.getByText(/^1,000 rows in/)).toBeVisible();
  await expect(page.getByText('Capped at 1,000 rows: the result has more')).toBeVisible();
  const table = q.result.getByRole('table', { name: 'Preview result' });
  await expect(table).toHaveAttribute('aria-rowcount', '1001');
  await expect(table.getByRole('columnheader', { name: /total/ })).toBeVisible();
  await expect(q.result.locator('tr[aria-rowindex="2"]')).toContainText('order 1');
  // Virtualised: a screenful of rows is in the page, not a thousand.
  const rendered = await q.result.locator('tbody tr[aria-rowindex]').count();
  expect(rendered).toBeLessThan(80);
  test.info().annotations.push({ type: 'rows in the DOM for 1,000', description: String(rendered) });
  await checkA11y(page);
  await screenshot(page, 'editor', 1500);

  // To the end with the keyboard, as in any scrolling region.
  await q.result.focus();
  await page.keyboard.press('End');
  const last = q.result.locator('tr[aria-rowindex="1001"]');
  await expect(last).toBeVisible();
  await expect(last).toContainText('1250.00');
  await expect(last.getByRole('cell', { name: '1000', exact: true })).toHaveCount(2); // its number and its id
  await expect(q.result.locator('tr[aria-rowindex="2"]')).toHaveCount(0);
  if (SCREENS) await q.result.screenshot({ path: `${SCREENS}/web-queries-preview-end.png` });
});

test('an edit makes a second version; the versions page shows both, their differences, and restores the first', async ({ page, herald }) => {
  const first = 'select id, total from orders where status = {{ status }} order by id';
  const created = await seedQuery(herald, { name: 'Orders grouped by status', sql: first, parameters: [{ name: 'status', type: 'string', default: 'shipped' }] });
  await signIn(page, editor);
  const q = new QueriesPage(page);
  await q.goto(created.id, 'Orders grouped by status');
  await expect(q.save).toBeDisabled();
  // The editor is no keyboard trap: Tab leaves it.
  await q.sql.focus();
  await page.keyboard.press('Tab');
  await expect(q.sql).not.toBeFocused();
  await q.replaceSql('select status, count(*) as n\nfrom orders\nwhere status = {{ status }}\ngroup by status');
  await expect(page.getByText('Unsaved changes')).toBeVisible();
  await q.save.click();
  await expect(page.getByText('Saved. The SQL is at version 2.')).toBeVisible();
  await expect(q.save).toBeDisabled();

  await page.getByRole('link', { name: 'Versions' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Versions of Orders grouped by status' })).toBeVisible();
  const versions = page.getByRole('table', { name: 'Versions' });
  await expect(versions.getByRole('row')).toHaveCount(3);
  await expect(versions.getByRole('row').nth(1)).toContainText('Version 2');
  await expect(versions.getByRole('row').nth(1)).toContainText('current');
  await expect(versions.getByRole('row').nth(2)).toContainText('Version 1');
  await expect(page.getByText('Lines removed: 1 · added: 4')).toBeVisible();
  const diff = page.getByRole('textbox', { name: 'SQL of version 2 against version 1' });
  await expect(diff).toContainText('group by status');
  await expect(diff).toContainText(first);
  await checkA11y(page);
  await screenshot(page, 'versions');

  await page.getByRole('button', { name: 'Restore version 1' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore version 1?' });
  await expect(dialog).toContainText('becomes the current version (3)');
  await dialog.getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByText('Version 1 restored as version 3.')).toBeVisible();
  await expect(versions.getByRole('row')).toHaveCount(4);
  await expect(versions.getByRole('row').nth(1)).toContainText('Version 3');
  await expect(versions.getByRole('row').nth(1)).toContainText('copy of version 1');
  await expect(page.getByText('Lines removed: 4 · added: 1')).toBeVisible();

  await page.getByRole('link', { name: 'Back to the query' }).click();
  await expect(q.sql).toContainText(first);
});

test('a change made meanwhile is not overwritten: Save says so, and Reload shows it', async ({ page, herald }) => {
  const created = await seedQuery(herald, { name: 'Orders left open', sql: "select count(*) from orders where status = 'open'" });
  await signIn(page, editor);
  const q = new QueriesPage(page);
  await q.goto(created.id, 'Orders left open');
  await q.name.fill('Open orders (mine)');
  await herald.seed.call('updateQuery', { path: { queryId: created.id }, body: { version: created.version, name: 'Open orders (theirs)' } });
  await q.save.click();
  const alert = page.getByRole('alert').filter({ hasText: 'Changed meanwhile' });
  await expect(alert).toContainText('Someone changed this meanwhile.');
  await checkA11y(page);
  await alert.getByRole('button', { name: 'Reload' }).click();
  await expect(q.name).toHaveValue('Open orders (theirs)');
  await expect(page.getByRole('heading', { level: 1, name: 'Open orders (theirs)' })).toBeVisible();
  await expect(alert).toHaveCount(0);
});

test('leaving with unsaved edits asks first: Cancel keeps them, Leave drops them; a saved query leaves freely', async ({ page, herald }) => {
  const created = await seedQuery(herald, { name: 'Guarded orders', sql: "select count(*) from orders where status = 'open'" });
  await signIn(page, editor);
  const q = new QueriesPage(page);
  await q.goto(created.id, 'Guarded orders');
  const nav = page.getByRole('navigation').getByRole('link', { name: 'Reports' });
  const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
  // Nothing edited: the page leaves without a question.
  await nav.click();
  await expect(page.getByRole('heading', { level: 1, name: 'Reports' })).toBeVisible();
  await q.goto(created.id, 'Guarded orders');
  await q.name.fill('Guarded orders (draft)');
  await nav.click();
  await expect(dialog).toContainText('Your changes on this page are not saved yet.');
  await checkA11y(page);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/queries/${created.id}$`));
  await expect(q.name).toHaveValue('Guarded orders (draft)');
  await nav.click();
  await dialog.getByRole('button', { name: 'Leave without saving' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Reports' })).toBeVisible();
  const stored = await herald.seed.call('getQuery', { path: { queryId: created.id } });
  expect(stored.name).toBe('Guarded orders');
  // A new query saved navigates to its own page without a question.
  await q.gotoList();
  await page.getByRole('link', { name: 'New query' }).click();
  await q.name.fill('Counted orders');
  await q.choose('Connection', 'Sales warehouse (postgres)');
  await q.replaceSql('select count(*) from orders');
  await q.save.click();
  await expect(page.getByRole('heading', { level: 1, name: 'Counted orders' })).toBeVisible();
  await expect(dialog).toHaveCount(0);
  await expect(page).toHaveURL(/\/queries\/[0-9a-f-]{36}$/);
});

test('delete asks first, and names the reports that still use a query', async ({ page, herald }) => {
  const used = await seedQuery(herald, { name: 'Weekly revenue', sql: 'select sum(total) from orders' });
  await herald.seed.call('createReport', { body: { title: 'Revenue every Monday', query_id: used.id } });
  const free = await seedQuery(herald, { name: 'Scratch query', sql: 'select 1' });
  await signIn(page, editor);
  const q = new QueriesPage(page);

  await q.goto(used.id, 'Weekly revenue');
  await page.getByRole('button', { name: 'Delete' }).click();
  let dialog = page.getByRole('dialog', { name: 'Delete this query?' });
  await expect(dialog).toContainText('“Weekly revenue” and all its versions are deleted.');
  await dialog.getByRole('button', { name: 'Delete query' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Reports use this query.');
  await expect(dialog.getByRole('link', { name: 'Revenue every Monday' })).toBeVisible();
  await checkA11y(page);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);

  await q.goto(free.id, 'Scratch query');
  await page.getByRole('button', { name: 'Delete' }).click();
  dialog = page.getByRole('dialog', { name: 'Delete this query?' });
  await dialog.getByRole('button', { name: 'Delete query' }).click();
  await expect(page).toHaveURL(/\/queries$/);
  await expect(page.getByText('Query “Scratch query” deleted.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Scratch query' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Weekly revenue' })).toBeVisible();
});

test('the assistant proposes SQL that is shown for review before it replaces the editor\'s text', async ({ page, herald }) => {
  const ai: OpenAiPeer = await openAiPeer({ apiKey: 'sk-browser-test' });
  const settings = await herald.seed.call('getAiSettings');
  await herald.seed.call('replaceAiSettings', { body: { version: settings.version, provider: 'openai', base_url: ai.baseUrl, model: 'gpt-test', api_key: 'sk-browser-test' } });
  try {
    const created = await seedQuery(herald, { name: 'Orders per status', sql: 'select status from orders' });
    const proposed = 'select status, count(*) as orders from orders group by status order by status';
    ai.fallback = ai.answerJson({ sql: proposed, parameters: [], explanation: 'Counts the orders of each status.' });
    await signIn(page, editor);
    const q = new QueriesPage(page);
    await q.goto(created.id, 'Orders per status');
    await page.getByRole('button', { name: 'Ask the assistant' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ask the assistant for SQL' });
    await dialog.getByLabel('What should the query answer?').fill('How many orders are there of each status?');
    await dialog.getByRole('button', { name: 'Propose' }).click();
    await expect(dialog.getByText('Counts the orders of each status.')).toBeVisible();
    await expect(dialog.getByText('Checked: the database accepts it')).toBeVisible();
    await expect(dialog.getByRole('textbox', { name: 'Proposed SQL' })).toContainText(proposed);
    await checkA11y(page);
    await screenshot(page, 'assistant');
    // Nothing has changed yet in the editor.
    await expect(q.sql).toHaveText('select status from orders');
    expect(ai.requests[0]!.body.messages.map((m: { content: string }) => m.content).join('\n')).toContain('How many orders are there of each status?');
    await dialog.getByRole('button', { name: 'Use this SQL' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(q.sql).toHaveText(proposed);
    await expect(page.getByText('Unsaved changes')).toBeVisible();
  } finally {
    const now = await herald.seed.call('getAiSettings');
    await herald.seed.call('replaceAiSettings', { body: { version: now.version, provider: 'off' } });
    await ai.close();
  }
});

test('a viewer reads queries and their versions without any edit control', async ({ page, herald }) => {
  const created = await seedQuery(herald, { name: 'Shipped orders', sql: "select id from orders where status = 'shipped'" });
  await herald.seed.call('updateQuery', { path: { queryId: created.id }, body: { version: created.version, sql: "select id, total from orders where status = 'shipped'" } });
  await signIn(page, viewer);
  const q = new QueriesPage(page);
  await q.gotoList();
  await expect(page.getByRole('link', { name: 'Shipped orders' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'New query' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'New query' })).toHaveCount(0);
  await checkA11y(page);

  await page.getByRole('link', { name: 'Shipped orders' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Shipped orders' })).toBeVisible();
  await expect(q.sql).toHaveAttribute('aria-readonly', 'true');
  await expect(q.sql).toContainText('select id, total from orders');
  await expect(q.name).toHaveAttribute('readonly', '');
  for (const name of ['Save', 'Delete', 'Run preview', 'Add parameter', 'Read schema', 'Refresh schema']) {
    await expect(page.getByRole('button', { name })).toHaveCount(0);
  }
  await checkA11y(page);

  await page.getByRole('link', { name: 'Versions' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Versions of Shipped orders' })).toBeVisible();
  await expect(page.getByText('Lines removed: 1 · added: 1')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Restore version 1' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Compare version 1 with the current version' })).toBeVisible();
  await checkA11y(page);
});

test('the list shows the most recently changed first and loads more', async ({ page, herald }) => {
  const names = ['Revenue by region', 'Late shipments', 'New customers', 'Refunds this week', 'Top products', 'Stock below minimum',
    'Orders per hour', 'Unpaid invoices', 'Returning customers', 'Average basket'];
  for (let batch = 0; batch < 6; batch += 1) {
    await Promise.all(names.map((name) => seedQuery(herald, { name: `${name} ${batch + 1}`, sql: 'select 1' })));
  }
  const latest = await seedQuery(herald, { name: 'The newest query', description: 'made last', sql: 'select 2' });
  await signIn(page, editor);
  const q = new QueriesPage(page);
  await q.gotoList();
  const table = page.getByRole('table', { name: 'Queries' });
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(50);
  await expect(rows.first()).toContainText('The newest query');
  await expect(rows.first()).toContainText('made last');
  await expect(rows.first()).toContainText('Sales warehouse');
  await checkA11y(page);
  await screenshot(page, 'list');
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(rows.nth(50)).toBeVisible();
  expect(await rows.count()).toBeGreaterThan(50);
  await rows.first().getByRole('link', { name: 'The newest query' }).click();
  await expect(page).toHaveURL(new RegExp(`/queries/${latest.id}$`));
});
