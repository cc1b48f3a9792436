/** The home page: health banner, count tiles, latest failures, next runs. */
import type { Locator, Page } from '@playwright/test';

export class DashboardPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    const stream = this.page.waitForResponse((r) => r.url().endsWith('/api/v1/events') && r.status() === 200);
    await this.page.goto('/');
    await stream;
  }

  tile(label: string): Locator { return this.page.getByRole('group', { name: label }); }
  /** The tile's big number. */
  value(label: string): Locator { return this.tile(label).getByText(/^\d+$/).first(); }
  get failures(): Locator { return this.page.getByRole('region', { name: 'Latest failures' }); }
  get nextRuns(): Locator { return this.page.getByRole('region', { name: 'Next runs' }); }
}
