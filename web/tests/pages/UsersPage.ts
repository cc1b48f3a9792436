/** Page object of /users and /users/:id: what an admin reads and clicks there. */
import { expect, type Locator, type Page } from '@playwright/test';

export type RoleLabel = 'Viewer' | 'Editor' | 'Administrator';

export class UsersPage {
  constructor(readonly page: Page) {}

  async open(): Promise<void> {
    await this.page.goto('/users');
    await expect(this.page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible();
  }

  /** The table row of the member named `name`. */
  row(name: string): Locator {
    return this.page.getByRole('row').filter({ has: this.page.getByRole('link', { name, exact: true }) });
  }

  /** Adds a member through the dialog and answers the temporary password it shows once. */
  async add(user: { name: string; email: string; role: RoleLabel }): Promise<string> {
    await this.page.getByRole('button', { name: 'Add user' }).click();
    const dialog = this.page.getByRole('dialog', { name: 'Add a user' });
    await dialog.getByLabel('Name').fill(user.name);
    await dialog.getByLabel('Email').fill(user.email);
    await dialog.getByLabel('Role').selectOption({ label: user.role });
    await dialog.getByRole('button', { name: 'Add user' }).click();
    const added = this.page.getByRole('dialog', { name: `${user.name} was added` });
    const field = added.getByRole('textbox', { name: 'Temporary password' });
    await expect(field).toHaveValue(/\S{10,}/);
    return field.inputValue();
  }

  async openMember(name: string): Promise<void> {
    await this.row(name).getByRole('link', { name, exact: true }).click();
    await expect(this.page.getByRole('heading', { level: 1, name })).toBeVisible();
  }

  /** On a member's page: a button, then the confirmation dialog's button of the same action. */
  async confirmAction(button: string, dialogTitle: RegExp | string, confirm = button): Promise<void> {
    await this.page.getByRole('button', { name: button, exact: true }).click();
    const dialog = this.page.getByRole('dialog', { name: dialogTitle });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: confirm, exact: true }).click();
    await expect(this.page.getByRole('dialog')).toHaveCount(0);
  }

  async setRole(role: RoleLabel): Promise<void> {
    const account = this.page.getByRole('region', { name: 'Account' });
    await account.getByLabel('Role').selectOption({ label: role });
    await account.getByRole('button', { name: 'Save' }).click();
  }
}
