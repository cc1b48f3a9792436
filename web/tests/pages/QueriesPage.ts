/**
 * The queries pages as a person uses them: the list, the editor (name, connection, the SQL editor
 * with its completions, parameters, preview) and the versions page.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import { pickOption } from './select.js';

export class QueriesPage {
  constructor(readonly page: Page) {}

  async gotoList(): Promise<void> {
    await this.page.goto('/queries');
    await expect(this.page.getByRole('heading', { level: 1, name: 'Queries' })).toBeVisible();
  }

  async goto(id: string, name: string): Promise<void> {
    await this.page.goto(`/queries/${id}`);
    await expect(this.page.getByRole('heading', { level: 1, name })).toBeVisible();
  }

  get sql(): Locator { return this.page.getByRole('textbox', { name: 'SQL', exact: true }); }
  get name(): Locator { return this.page.getByRole('textbox', { name: 'Name', exact: true }).first(); }
  get save(): Locator { return this.page.getByRole('button', { name: 'Save' }); }
  get result(): Locator { return this.page.getByRole('region', { name: 'Preview result' }); }
  parameter(name: string): Locator { return this.page.getByRole('group', { name: `Parameter ${name}` }); }

  /** Picks an option of a select by its label (its listbox is labelled alike, hence the role). */
  async choose(label: string, option: string, scope: Locator | Page = this.page): Promise<void> {
    await pickOption(scope.getByRole('textbox', { name: label, exact: true }), this.page.getByRole('option', { name: option, exact: true }));
  }

  /** Replaces the editor's whole text (as a paste would). */
  async replaceSql(text: string): Promise<void> {
    await this.sql.click();
    await this.page.keyboard.press('ControlOrMeta+a');
    await this.page.keyboard.insertText(text);
  }

  async runPreview(cap: string): Promise<void> {
    await this.choose('Row cap', cap);
    await this.page.getByRole('button', { name: 'Run preview' }).click();
  }
}
