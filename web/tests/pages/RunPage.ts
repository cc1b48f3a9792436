/** A run's page as a person sees it: status, steps, sample, deliveries, downloads and shared links. */
import { expect, type Locator, type Page } from '@playwright/test';
import { pickOption } from './select.js';

export class RunPage {
  constructor(readonly page: Page) {}

  /** Opens the run's page and waits until its event stream is connected (so nothing live is missed). */
  async open(runId: string): Promise<void> {
    const stream = this.page.waitForResponse((r) => r.url().endsWith('/api/v1/events') && r.status() === 200);
    await this.page.goto(`/runs/${runId}`);
    await stream;
    await expect(this.status).toBeVisible();
  }

  get status(): Locator { return this.page.getByRole('status', { name: 'Status' }); }
  section(name: string): Locator { return this.page.getByRole('region', { name }); }
  step(name: string): Locator { return this.section('Steps').getByRole('row', { name: new RegExp(`^${name}\\b`) }); }
  attempt(channel: string, position = 1): Locator { return this.page.getByRole('article', { name: `#${position} ${channel}` }); }

  async history(channel: string): Promise<Locator> {
    const attempt = this.attempt(channel);
    const details = attempt.locator('details');
    if (!(await details.evaluate((d) => (d as unknown as { open: boolean }).open))) await attempt.getByText(/^Request history/).click();
    return attempt.getByRole('table', { name: `Requests to ${channel}` });
  }

  /** Clicks "Download <FORMAT>" and answers the file's path and proposed name. */
  async download(format: 'CSV' | 'XLSX' | 'JSON'): Promise<{ path: string; name: string }> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('link', { name: `Download ${format}` }).click(),
    ]);
    return { path: await download.path(), name: download.suggestedFilename() };
  }

  /** Shares the result through a link and answers the link's address, shown once. */
  async share(format: 'CSV' | 'XLSX' | 'JSON', days: number): Promise<string> {
    const form = this.page.getByRole('form', { name: 'Share a link' });
    await pickOption(form.getByRole('textbox', { name: 'Format' }), this.page.getByRole('option', { name: format, exact: true }));
    await form.getByRole('textbox', { name: 'Expires in (days)' }).fill(String(days));
    await form.getByRole('button', { name: 'Share a link' }).click();
    const made = this.page.getByRole('status').filter({ hasText: 'Link made' });
    return made.getByRole('textbox', { name: 'Link' }).inputValue();
  }

  link(title: string): Locator { return this.page.getByRole('list', { name: 'Links to this run’s result' }).getByRole('article', { name: new RegExp(`^Link to ${title}`) }); }
}
