/** The runs list: filters (in the address) and rows, loading more as it scrolls. */
import type { Locator, Page } from '@playwright/test';
import { pickOption } from './select.js';

export class RunsPage {
  constructor(readonly page: Page) {}

  async open(query = ''): Promise<void> { await this.page.goto(`/runs${query}`); }

  /** The rows of the table body (runs). */
  get rows(): Locator { return this.page.getByRole('table').getByRole('row').filter({ has: this.page.getByRole('cell') }); }

  async filter(label: 'Status' | 'Report' | 'Trigger', option: string): Promise<void> {
    await pickOption(this.page.getByRole('textbox', { name: label }), this.page.getByRole('option', { name: option, exact: true }));
  }

  /** Scrolls to the end of the list (what makes the next page load). */
  async scrollToEnd(): Promise<void> { await this.page.getByTestId('list-end').scrollIntoViewIfNeeded(); }
}
