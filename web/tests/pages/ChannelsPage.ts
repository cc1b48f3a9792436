/**
 * The channels pages as a person uses them: the list, a new channel's form (type, the plugin's
 * settings), a channel's page with its health, its test and retry, its settings and delete.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import { pickOption } from './select.js';

export class ChannelsPage {
  constructor(readonly page: Page) {}

  async gotoList(): Promise<void> {
    await this.page.goto('/channels');
    await expect(this.page.getByRole('heading', { level: 1, name: 'Channels' })).toBeVisible();
  }

  async goto(id: string, name: string): Promise<void> {
    await this.page.goto(`/channels/${id}`);
    await expect(this.page.getByRole('heading', { level: 1, name })).toBeVisible();
  }

  /** The list's row of the channel named `name`. */
  row(name: string): Locator {
    return this.page.getByRole('row').filter({ has: this.page.getByRole('link', { name, exact: true }) });
  }

  get form(): Locator { return this.page.getByRole('form', { name: 'Settings' }); }
  field(label: string): Locator { return this.form.getByRole('textbox', { name: label, exact: true }); }
  get health(): Locator { return this.page.getByRole('region', { name: 'Health' }); }
  get operations(): Locator { return this.page.getByRole('region', { name: 'Test and retry' }); }
  button(name: string, scope: Locator | Page = this.page): Locator { return scope.getByRole('button', { name, exact: true }); }
  /** The answer of a test message (accepted: status; refused: alert). */
  testOutcome(scope: Locator = this.form): Locator {
    return scope.getByRole('status').or(scope.getByRole('alert')).filter({ hasText: /test message/ });
  }

  /** Picks an option of a Mantine select by its label. */
  async choose(label: string, option: string, scope: Locator | Page = this.page): Promise<void> {
    await pickOption(scope.getByRole('textbox', { name: label, exact: true }), this.page.getByRole('option', { name: option, exact: true }));
  }

  /** Starts a new channel of `type` (its plugin's name) named `name`. */
  async startNew(name: string, type: string): Promise<void> {
    await this.page.goto('/channels/new');
    await expect(this.page.getByRole('heading', { level: 1, name: 'New channel' })).toBeVisible();
    await this.field('Name').fill(name);
    await this.choose('Type', type, this.form);
  }
}
