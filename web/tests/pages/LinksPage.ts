/** /links: every shared link, by status. */
import type { Locator, Page } from '@playwright/test';

export class LinksPage {
  constructor(readonly page: Page) {}
  async open(query = ''): Promise<void> { await this.page.goto(`/links${query}`); }
  get list(): Locator { return this.page.getByRole('list', { name: 'Shared links' }); }
  link(title: string): Locator { return this.list.getByRole('article', { name: new RegExp(`^Link to ${title}`) }); }
}
