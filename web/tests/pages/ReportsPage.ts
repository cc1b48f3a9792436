/**
 * The reports pages as a person uses them: the list, a report's form (title, query, parameters,
 * schedule, condition), its actions, and its deliveries with their editor and preview.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import { pickOption } from './select.js';

export class ReportsPage {
  constructor(readonly page: Page) {}

  async gotoList(): Promise<void> {
    await this.page.goto('/reports');
    await expect(this.page.getByRole('heading', { level: 1, name: 'Reports' })).toBeVisible();
  }

  async goto(id: string, title: string): Promise<void> {
    await this.page.goto(`/reports/${id}`);
    await expect(this.page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  }

  get form(): Locator { return this.page.getByRole('form', { name: 'Report' }); }
  get title(): Locator { return this.form.getByRole('textbox', { name: 'Title' }); }
  get cron(): Locator { return this.page.getByRole('textbox', { name: 'Cron expression' }); }
  get nextRuns(): Locator { return this.page.getByRole('list', { name: 'Next runs' }); }
  get dstNote(): Locator { return this.page.getByRole('note').filter({ hasText: 'Daylight saving time' }); }
  get deliveries(): Locator { return this.page.getByRole('region', { name: 'Deliveries' }); }
  delivery(n: number): Locator { return this.deliveries.getByRole('listitem').filter({ hasText: new RegExp(`^${n}\\. `) }); }
  get editor(): Locator { return this.deliveries.getByRole('form'); }
  get preview(): Locator { return this.page.getByRole('region', { name: 'Message preview' }); }
  button(name: string): Locator { return this.page.getByRole('button', { name, exact: true }); }

  /** Picks an option of a Mantine select by its label (typing first into a searchable one). */
  async choose(label: string, option: string, options: { scope?: Locator | Page; search?: string } = {}): Promise<void> {
    const input = (options.scope ?? this.page).getByRole('textbox', { name: label, exact: true });
    await pickOption(input, this.page.getByRole('option', { name: option, exact: true }), options.search);
  }

  async schedule(cron: string, timezone: string): Promise<void> {
    await this.cron.fill(cron);
    await this.choose('Time zone', timezone, { search: timezone });
  }

  async runNow(deliver: boolean): Promise<void> {
    await this.button('Run now').click();
    await this.page.getByRole('menuitem', { name: deliver ? 'Run and deliver' : 'Run without delivering' }).click();
  }
}
