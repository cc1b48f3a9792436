/**
 * The connections pages as a person uses them: the list, a connection's form (name, type and the
 * settings drawn from its plugin's schema), its tests, its schema browser and delete.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import { pickOption } from './select.js';

export class ConnectionsPage {
  constructor(readonly page: Page) {}

  async gotoList(): Promise<void> {
    await this.page.goto('/connections');
    await expect(this.page.getByRole('heading', { level: 1, name: 'Connections' })).toBeVisible();
  }

  async goto(id: string, name: string): Promise<void> {
    await this.page.goto(`/connections/${id}`);
    await expect(this.page.getByRole('heading', { level: 1, name })).toBeVisible();
  }

  get form(): Locator { return this.page.getByRole('form', { name: 'Connection' }); }
  field(label: string): Locator { return this.form.getByRole('textbox', { name: label, exact: true }); }
  get port(): Locator { return this.form.getByRole('textbox', { name: 'Port', exact: true }); }
  get password(): Locator { return this.form.getByLabel('Password', { exact: true }); }
  get list(): Locator { return this.page.getByRole('table', { name: 'Connections' }); }
  row(name: string): Locator { return this.list.getByRole('row').filter({ has: this.page.getByRole('link', { name, exact: true }) }); }
  get schema(): Locator { return this.page.getByRole('region', { name: 'Tables and columns' }); }
  /** The outcome of a test: a status when the database answered, an alert when not. */
  get testOk(): Locator { return this.page.getByRole('status').filter({ hasText: 'The database answered' }); }
  get testFailed(): Locator { return this.page.getByRole('alert').filter({ has: this.page.getByTestId('test-message') }); }
  get dialog(): Locator { return this.page.getByRole('dialog'); }
  button(name: string): Locator { return this.page.getByRole('button', { name, exact: true }); }

  /** Picks an option of a Mantine select by its label. */
  async choose(label: string, option: string): Promise<void> {
    await pickOption(this.form.getByRole('textbox', { name: label, exact: true }), this.page.getByRole('option', { name: option, exact: true }));
  }

  /** Fills the settings of a Postgres connection. */
  async fillPostgres(s: { name: string; host: string; port: number; database: string; username: string; password?: string }): Promise<void> {
    await this.field('Name').fill(s.name);
    await this.field('Host').fill(s.host);
    await this.port.fill(String(s.port));
    await this.field('Database').fill(s.database);
    await this.field('User name').fill(s.username);
    if (s.password !== undefined) await this.password.fill(s.password);
    await this.choose('TLS mode', 'disable');
  }
}
