/** Page object of /api-keys. */
import { expect, type Locator, type Page } from '@playwright/test';

/** The text of the label an input is tied to by id. */
async function labelOf(input: Locator): Promise<string> {
  const id = await input.getAttribute('id');
  return (await input.page().locator(`label[for="${id}"]`).innerText()).trim();
}

export class ApiKeysPage {
  constructor(readonly page: Page) {}

  async open(query = ''): Promise<void> {
    await this.page.goto(`/api-keys${query}`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  }

  /** The create dialog, opened. */
  async startCreate(): Promise<Locator> {
    await this.page.getByRole('button', { name: 'Create API key' }).click();
    const dialog = this.page.getByRole('dialog', { name: 'Create an API key' });
    await expect(dialog).toBeVisible();
    return dialog;
  }

  /** The scopes the dialog offers, in order. */
  async offeredScopes(dialog: Locator): Promise<string[]> {
    const radios = dialog.getByRole('radiogroup', { name: 'Scope' }).getByRole('radio');
    const names: string[] = [];
    for (const radio of await radios.all()) names.push((await radio.getAttribute('aria-label')) ?? await labelOf(radio));
    return names;
  }

  row(name: string): Locator {
    return this.page.getByRole('row').filter({ has: this.page.getByText(name, { exact: true }) });
  }
}
