/** The header's bell, its dropdown, and the /notifications page. */
import type { Locator, Page } from '@playwright/test';

export class NotificationsBell {
  constructor(readonly page: Page) {}

  get button(): Locator { return this.page.getByRole('banner').getByRole('button', { name: /unread notifications?$/ }); }
  get dropdown(): Locator { return this.page.getByRole('dialog', { name: 'Notifications' }); }
  unread(count: number): Locator { return this.page.getByRole('button', { name: count === 1 ? '1 unread notification' : `${count} unread notifications` }); }
  async open(): Promise<Locator> {
    await this.button.click();
    return this.dropdown;
  }
}
