/** Page object of /audit. */
import { expect, type Locator, type Page } from '@playwright/test';

export class AuditPage {
  constructor(readonly page: Page) {}

  async open(query = ''): Promise<void> {
    await this.page.goto(`/audit${query}`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Audit trail' })).toBeVisible();
  }

  /** The event rows (the header row and opened details left out). */
  rows(): Locator {
    return this.page.getByRole('row').filter({ has: this.page.getByRole('button', { name: /^Details of / }) });
  }

  async filterType(label: string): Promise<void> {
    await this.page.getByLabel('Event type', { exact: true }).selectOption({ label });
  }

  async filterMember(name: string): Promise<void> {
    await this.page.getByLabel('Member', { exact: true }).selectOption({ label: name });
  }
}
