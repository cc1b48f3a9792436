/** The profile page (/profile), by its sections. */
import { expect, type Locator, type Page } from '@playwright/test';

export class ProfilePage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto('/profile');
    await expect(this.page.getByRole('heading', { name: 'Profile', level: 1 })).toBeVisible();
  }

  section(name: string | RegExp): Locator { return this.page.getByRole('region', { name }); }
  get account(): Locator { return this.section(/^(Name and preferences|Name und Einstellungen)$/); }
  get password(): Locator { return this.section(/^(Password|Passwort)$/); }
  get authenticator(): Locator { return this.section(/^(Authenticator app|Authenticator-App)$/); }
  get passkeys(): Locator { return this.section('Passkeys'); }
  get sessions(): Locator { return this.section(/^(Sessions|Sitzungen)$/); }

  /** The open modal dialog. */
  get dialog(): Locator { return this.page.getByRole('dialog'); }

  /** Adds a passkey (the page's virtual authenticator answers the browser's prompt). */
  async addPasskey(name: string): Promise<void> {
    await this.passkeys.getByRole('button', { name: 'Add a passkey' }).click();
    await this.dialog.getByLabel('Name').fill(name);
    await this.dialog.getByRole('button', { name: 'Continue' }).click();
    await expect(this.passkeys.getByRole('cell', { name, exact: true })).toBeVisible();
  }

  /** The key the authenticator app set-up shows as text, without its grouping spaces. */
  async shownSecret(within: Locator = this.page.locator('body')): Promise<string> {
    const text = await within.getByLabel('Key for your authenticator app').textContent();
    return (text ?? '').replace(/\s+/g, '');
  }
}
