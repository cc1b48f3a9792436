/** Configuration as code as a person uses it: export a download, paste YAML, plan, apply, the directory's status. */
import { expect, type Download, type Locator, type Page } from '@playwright/test';

export class ConfigPage {
  constructor(readonly page: Page) {}

  async open(section: 'resources' | 'import' | 'gitops'): Promise<void> {
    await this.page.goto(`/config/${section}`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Configuration as code' })).toBeVisible();
  }

  async kind(label: 'Connections' | 'Queries' | 'Channels' | 'Reports'): Promise<void> {
    await this.page.getByRole('radiogroup', { name: 'Kind of resource' }).getByText(label, { exact: true }).click();
  }

  /** The row of a resource in the resources table. */
  row(name: string): Locator {
    return this.page.getByRole('table', { name: 'Resources' }).getByRole('row').filter({ has: this.page.getByRole('cell', { name, exact: true }) });
  }

  /** Clicks Download YAML and answers the browser's download with its text. */
  async download(): Promise<{ download: Download; text: string }> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name: 'Download YAML' }).click(),
    ]);
    const stream = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return { download, text: Buffer.concat(chunks).toString('utf8') };
  }

  async plan(yaml: string): Promise<void> {
    await this.page.getByRole('textbox', { name: 'YAML documents' }).fill(yaml);
    await this.page.getByRole('button', { name: 'Plan', exact: true }).click();
  }

  /** A resource's change in a plan or an applied result: "Create Channel imported-hook". */
  change(action: 'Create' | 'Update' | 'Delete' | 'Unchanged', kind: string, name: string): Locator {
    return this.page.getByRole('region', { name: `${action} ${kind} ${name}` });
  }
}
