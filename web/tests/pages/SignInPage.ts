/** The sign-in page and its steps, as a person uses them. */
import { expect, type Locator, type Page } from '@playwright/test';

export class SignInPage {
  constructor(readonly page: Page) {}

  get heading(): Locator { return this.page.getByRole('heading', { name: 'Sign in to Herald' }); }
  get secondStep(): Locator { return this.page.getByRole('heading', { name: 'Confirm it is you' }); }

  async open(next?: string): Promise<void> {
    await this.page.goto(next ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in');
    await expect(this.heading).toBeVisible();
  }

  async withPassword(email: string, password: string): Promise<void> {
    await this.page.getByLabel('Email').fill(email);
    await this.page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
    await this.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  async withAuthenticatorCode(code: string): Promise<void> {
    await this.page.getByRole('tab', { name: 'Authenticator app' }).click();
    await this.page.getByLabel('Authenticator code').fill(code);
    await this.page.getByRole('button', { name: 'Verify' }).click();
  }

  async withRecoveryCode(code: string): Promise<void> {
    await this.page.getByRole('tab', { name: 'Recovery code' }).click();
    await this.page.getByRole('textbox', { name: 'Recovery code' }).fill(code);
    await this.page.getByRole('button', { name: 'Verify' }).click();
  }

  async withPasskeyStep(): Promise<void> {
    await this.page.getByRole('button', { name: 'Use my passkey' }).click();
  }

  async withPasskeyOnly(): Promise<void> {
    await this.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  }

  /** The single sign-on button, by the label the workspace's admin gave it. */
  async withSingleSignOn(label = 'Sign in with single sign-on'): Promise<void> {
    await this.page.getByRole('button', { name: label }).click();
  }
}
