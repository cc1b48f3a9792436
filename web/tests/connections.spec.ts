/**
 * Connections in the browser, against a real Herald and a real PostgreSQL "user database": an
 * admin makes one from the form the postgres plugin's schema draws, tests it before saving (and
 * sees Postgres's own message when the database does not exist), edits it keeping the stored
 * password and then replacing it, reads its tables in the schema browser and refreshes them,
 * deletes one that a query uses (its query listed with a link) and one nothing uses; a change
 * made meanwhile; the managed badge of an imported one; viewers and editors see no action they
 * may not take; axe on every page.
 */
import { test, expect, signIn, checkA11y } from './support/fixtures.js';
import { ConnectionsPage } from './pages/ConnectionsPage.js';
import { screen } from './support/screens.js';
import type { RunningHerald } from './support/herald.js';
import type { Schemas } from '../../sdk/src/index.js';
import { createPostgresSource, type PostgresSource } from '../../tests/support/user-databases.js';

// Each test walks a page with axe more than once and talks to a database: room on a busy machine.
test.describe.configure({ timeout: 120_000 });

let src: PostgresSource;

test.beforeAll(async () => {
  src = await createPostgresSource(async (sql) => {
    await sql`create table orders (id int primary key, status text not null, total numeric(12,2))`;
    await sql`insert into orders values (1, 'open', 10.50), (2, 'shipped', 5.25)`;
  });
});

test.afterAll(async () => { await src?.drop(); });

const body = (name: string, extra: Record<string, unknown> = {}) => ({ ...src.connection(name), ...extra }) as Schemas['CreateConnection'];
const seedConnection = (herald: Pick<RunningHerald, 'seed'>, name: string, extra: Record<string, unknown> = {}) =>
  herald.seed.call('createConnection', { body: body(name, extra) });

/** connection.updated events of one connection, newest first: whether each changed the password. */
async function passwordChanges(herald: Pick<RunningHerald, 'seed'>, id: string): Promise<unknown[]> {
  const events = await herald.seed.call('listSecurityEvents', { query: { type: 'connection.updated', limit: 50 } });
  return events.items.filter((e) => e.target?.id === id).map((e) => e.details.password_changed);
}

test('an admin adds a Postgres connection from the plugin\'s form, tests it before saving, and sees Postgres\'s message for a database that does not exist', async ({ page, herald }) => {
  await signIn(page);
  const connections = new ConnectionsPage(page);
  await connections.gotoList();
  await checkA11y(page);
  await page.getByRole('link', { name: 'Add connection' }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: 'New connection' })).toBeVisible();
  // The postgres plugin's labels and defaults: port 5432, TLS prefer, application name herald.
  await connections.choose('Type', 'PostgreSQL');
  await expect(connections.port).toHaveValue('5432');
  await expect(connections.field('Application name')).toHaveValue('herald');
  await expect(connections.form.getByText('Stored encrypted and never shown again.')).toBeVisible();

  await connections.fillPostgres({ name: 'Shop', host: src.host, port: src.port, database: 'no_such_db_herald', username: src.username, password: 'first-secret' });
  await connections.button('Test connection').click();
  await expect(connections.testFailed).toContainText('The database refused the login');
  await expect(connections.testFailed.getByTestId('test-message')).toContainText('database "no_such_db_herald" does not exist');
  await checkA11y(page);
  await screen(page, 'web-connections-test-failed');

  await connections.field('Database').fill(src.database);
  await connections.button('Test connection').click();
  await expect(connections.testOk).toContainText('PostgreSQL');
  await connections.button('Create connection').click();

  await expect(page.getByRole('heading', { level: 1, name: 'Shop' })).toBeVisible();
  await expect(page).toHaveURL(/\/connections\/[0-9a-f-]{36}$/);
  const id = page.url().split('/').pop()!;
  expect(await herald.seed.call('getConnection', { path: { connectionId: id } })).toMatchObject({
    name: 'Shop', type: 'postgres', host: src.host, port: src.port, database: src.database, username: src.username,
    ssl_mode: 'disable', password: { configured: true }, options: { application_name: 'herald' },
  });
  await expect(connections.form.getByText('Configured', { exact: true })).toBeVisible();
  await connections.button('Test saved connection').click();
  await expect(connections.testOk).toBeVisible();
  await checkA11y(page);

  await connections.gotoList();
  await expect(connections.row('Shop')).toContainText('PostgreSQL');
  await expect(connections.row('Shop')).toContainText(src.database);
});

test('an empty list says so and leads an admin to "Add connection"; a viewer is told who adds them', async ({ page, herald }) => {
  // The worker's Herald is shared with other tests: the list answers empty here, as on a new instance.
  await page.route(/\/api\/v1\/connections\?/, (route) => route.fulfill({ json: { items: [] } }));
  await signIn(page);
  const connections = new ConnectionsPage(page);
  await connections.gotoList();
  await expect(page.getByText('No connection yet.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Add connection' })).toHaveCount(2);
  await checkA11y(page);
  await page.getByRole('link', { name: 'Add connection' }).last().click();
  await expect(page.getByRole('heading', { level: 1, name: 'New connection' })).toBeVisible();

  const viewer = await herald.user('viewer');
  await page.context().clearCookies();
  await signIn(page, viewer);
  await connections.gotoList();
  await expect(page.getByText('An admin adds the databases Herald reads from.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Add connection' })).toHaveCount(0);
});

test('a problem of a setting shows on its field, and a save over a change made meanwhile offers a reload', async ({ page, herald }) => {
  const c = await seedConnection(herald, 'Ledger');
  await signIn(page);
  const connections = new ConnectionsPage(page);
  await connections.goto(c.id, 'Ledger');
  await connections.field('Schema search path').fill('1 not a schema');
  await connections.button('Save').click();
  await expect(connections.field('Schema search path')).toHaveAttribute('aria-invalid', 'true');
  await expect(connections.field('Schema search path')).toHaveAccessibleDescription(/must match pattern/);

  await connections.field('Schema search path').fill('public');
  await herald.seed.call('updateConnection', { path: { connectionId: c.id }, body: { version: c.version, name: 'Ledger (renamed)' } });
  await connections.button('Save').click();
  await expect(page.getByRole('alert').filter({ hasText: 'Someone changed this meanwhile' })).toBeVisible();
  await checkA11y(page);
  await connections.button('Reload').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Ledger (renamed)' })).toBeVisible();
  await expect(connections.field('Name')).toHaveValue('Ledger (renamed)');
  await expect(connections.field('Schema search path')).toHaveValue('');
});

test('an edit keeps the stored password (still configured, the connection still works), then replaces it, then removes it', async ({ page, herald }) => {
  const c = await seedConnection(herald, 'Keeper', { password: 'kept-secret' });
  await signIn(page);
  const connections = new ConnectionsPage(page);
  await connections.goto(c.id, 'Keeper');
  await expect(connections.form.getByText('Configured', { exact: true })).toBeVisible();
  await expect(connections.button('Replace Password')).toBeVisible();

  // A change that keeps the password: the form sends none, the service keeps the stored one.
  await expect(connections.button('Test with these changes')).toHaveCount(0); // nothing changed: the header's test is the one
  await connections.field('Name').fill('Keeper two');
  await connections.button('Test with these changes').click();
  await expect(connections.testOk).toBeVisible();
  await connections.button('Save').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Keeper two' })).toBeVisible();
  await expect(connections.form.getByText('Configured', { exact: true })).toBeVisible();
  const kept = await herald.seed.call('getConnection', { path: { connectionId: c.id } });
  expect(kept).toMatchObject({ name: 'Keeper two', password: { configured: true } });
  await expect.poll(() => passwordChanges(herald, c.id)).toEqual([false]);
  expect(await herald.seed.call('testConnection', { path: { connectionId: c.id } })).toMatchObject({ ok: true });
  await checkA11y(page);

  // Replace: a new one typed and saved.
  await connections.button('Replace Password').click();
  await connections.password.fill('new-secret');
  await connections.button('Save').click();
  await expect(connections.form.getByText('Configured', { exact: true })).toBeVisible();
  await expect.poll(() => passwordChanges(herald, c.id)).toEqual([true, false]);
  expect(await herald.seed.call('getConnection', { path: { connectionId: c.id } })).toMatchObject({ password: { configured: true } });
  await connections.button('Test saved connection').click();
  await expect(connections.testOk).toBeVisible();

  // Remove: null sent, and the connection has no password any more (this Postgres trusts loopback).
  await connections.button('Remove Password').click();
  await expect(connections.form.getByText('Removed when you save')).toBeVisible();
  await connections.button('Save').click();
  await expect.poll(() => passwordChanges(herald, c.id)).toEqual([true, true, false]);
  expect((await herald.seed.call('getConnection', { path: { connectionId: c.id } })).password).toBeUndefined();
  await expect(connections.password).toHaveValue('');
  await expect(connections.form.getByText('Configured', { exact: true })).toHaveCount(0);
});

test('the schema browser reads the tables and columns, and refresh finds a new table', async ({ page, herald }) => {
  const c = await seedConnection(herald, 'Schema shop');
  await signIn(page);
  const connections = new ConnectionsPage(page);
  await connections.goto(c.id, 'Schema shop');
  await expect(connections.schema).toContainText('The schema has not been read yet.');
  await connections.schema.getByRole('button', { name: 'Refresh schema' }).click();
  await expect(connections.schema.getByRole('button', { name: /public\.orders/ })).toBeVisible();
  await expect(connections.schema.getByTestId('schema-refreshed-at')).toContainText('Read:');
  await connections.schema.getByRole('button', { name: /public\.orders/ }).click();
  const columns = connections.schema.getByRole('table', { name: 'Columns of public.orders' });
  await expect(columns.getByRole('row', { name: /status text/ })).toContainText('no');
  await expect(columns.getByRole('row', { name: /total numeric/ })).toContainText('yes');
  await checkA11y(page);
  await screen(page, 'web-connections-schema');

  await src.sql`create table customers (id int primary key, email text)`;
  try {
    await expect(connections.schema.getByRole('button', { name: /public\.customers/ })).toHaveCount(0);
    await connections.schema.getByRole('button', { name: 'Refresh schema' }).click();
    await expect(connections.schema.getByRole('button', { name: /public\.customers/ })).toBeVisible();
    await connections.schema.getByRole('textbox', { name: 'Filter tables and columns' }).fill('email');
    await expect(connections.schema.getByRole('button', { name: /public\.orders/ })).toHaveCount(0);
    await expect(connections.schema.getByRole('button', { name: /public\.customers/ })).toBeVisible();
  } finally {
    await src.sql`drop table customers`;
  }
});

test('delete of a connection a query uses lists the query with its link; one nothing uses goes', async ({ page, herald }) => {
  const used = await seedConnection(herald, 'Used warehouse');
  const query = await herald.seed.call('createQuery', { body: { name: 'Orders using the shop', connection_id: used.id, sql: 'select id from orders' } });
  const unused = await seedConnection(herald, 'Spare warehouse');
  await signIn(page);
  const connections = new ConnectionsPage(page);
  await connections.goto(used.id, 'Used warehouse');
  await connections.button('Delete').click();
  await expect(connections.dialog).toContainText('Delete Used warehouse?');
  await connections.dialog.getByRole('button', { name: 'Delete connection' }).click();
  await expect(connections.dialog.getByRole('alert')).toContainText('These queries use the connection');
  const link = connections.dialog.getByRole('link', { name: 'Orders using the shop' });
  await expect(link).toHaveAttribute('href', `/queries/${query.id}`);
  await checkA11y(page);
  await screen(page, 'web-connections-in-use');
  // Deleting again would fail the same way: only Cancel is left.
  await expect(connections.dialog.getByRole('button', { name: 'Delete connection' })).toHaveCount(0);
  await connections.dialog.getByRole('button', { name: 'Cancel' }).click();
  expect((await herald.seed.call('getConnection', { path: { connectionId: used.id } })).name).toBe('Used warehouse');

  await connections.goto(unused.id, 'Spare warehouse');
  await connections.button('Delete').click();
  await connections.dialog.getByRole('button', { name: 'Delete connection' }).click();
  await expect(page).toHaveURL(/\/connections$/);
  await expect(page.getByText('Spare warehouse was deleted')).toBeVisible();
  await expect(connections.list.getByRole('link', { name: 'Spare warehouse', exact: true })).toHaveCount(0);
  await expect(connections.row('Used warehouse')).toBeVisible();
  const err = await herald.seed.call('getConnection', { path: { connectionId: unused.id } }).catch((e: unknown) => e);
  expect((err as { status?: number }).status).toBe(404);
});

test('an imported connection carries the managed badge on its page', async ({ page, herald }) => {
  const c = src.connection('x') as { host: string; port: number; database: string; username: string };
  await herald.seed.call('importConfig', {
    body: {
      mode: 'apply',
      yaml: `apiVersion: herald/v1\nkind: Connection\nmetadata: {name: imported-dw}\nspec: {name: Imported warehouse, type: postgres, host: '${c.host}', port: ${c.port}, database: ${c.database}, username: ${c.username}, ssl_mode: disable}\n`,
    },
  });
  const { items } = await herald.seed.call('listConnections', { query: { limit: 200 } });
  const imported = items.find((i) => i.name === 'Imported warehouse')!;
  await signIn(page);
  const connections = new ConnectionsPage(page);
  await connections.goto(imported.id, 'Imported warehouse');
  await expect(page.getByText('Imported', { exact: true })).toBeVisible();
  await connections.gotoList();
  await expect(connections.row('Imported warehouse').getByText('Imported', { exact: true })).toBeVisible();
  await screen(page, 'web-connections-list');
});

test('a viewer reads connections without any action; an editor may refresh the schema only', async ({ page, herald }) => {
  const c = await seedConnection(herald, 'Read only shop', { password: 'secret' });
  const viewer = await herald.user('viewer', 'Vera Viewer');
  await signIn(page, viewer);
  const connections = new ConnectionsPage(page);
  await page.goto('/');
  await expect(page.getByRole('link', { name: 'Connections' })).toBeVisible();
  await connections.gotoList();
  await expect(connections.row('Read only shop')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Add connection' })).toHaveCount(0);
  await checkA11y(page);
  await connections.goto(c.id, 'Read only shop');
  await expect(page.getByText('Only admins change connections.')).toBeVisible();
  await expect(connections.field('Host')).toBeDisabled();
  await expect(connections.form.getByText('Configured', { exact: true })).toBeVisible();
  for (const name of ['Save', 'Test connection', 'Test saved connection', 'Delete', 'Refresh schema', 'Replace Password', 'Remove Password']) {
    await expect(connections.button(name)).toHaveCount(0);
  }
  await checkA11y(page);
  await page.goto('/connections/new');
  await expect(page.getByText('Only admins add and change connections.')).toBeVisible();

  const editor = await herald.user('editor', 'Eddie Editor');
  await page.context().clearCookies();
  await signIn(page, editor);
  await connections.goto(c.id, 'Read only shop');
  for (const name of ['Save', 'Test connection', 'Test saved connection', 'Delete']) {
    await expect(connections.button(name)).toHaveCount(0);
  }
  await connections.schema.getByRole('button', { name: 'Refresh schema' }).click();
  await expect(connections.schema.getByRole('button', { name: /public\.orders/ })).toBeVisible();
  await checkA11y(page);
});
