/** The settings pages as a person uses them: a section by its tab, fields by label, Save and what it answered. */
import { expect, type Locator, type Page } from '@playwright/test';
import { pickOption } from './select.js';

export type SettingsSection = 'workspace' | 'sso' | 'ai' | 'alerts' | 'storage' | 'about';

export class SettingsPage {
  constructor(readonly page: Page) {}

  async open(section: SettingsSection): Promise<void> {
    await this.page.goto(`/settings/${section}`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
    await expect(this.page.getByRole('tab', { selected: true })).toBeVisible();
  }

  /** Opens a section by clicking its tab, as a person would from another one. */
  async tab(name: string): Promise<void> {
    await this.page.getByRole('tab', { name }).click();
  }

  heading(name: string | RegExp): Locator {
    return this.page.getByRole('heading', { level: 2, name });
  }

  switch(name: string): Locator {
    return this.page.getByRole('switch', { name });
  }

  async save(): Promise<void> {
    await this.page.getByRole('button', { name: 'Save', exact: true }).click();
  }

  /** The "Saved." line that a successful save shows. */
  saved(): Locator {
    return this.page.getByRole('status').filter({ hasText: 'Saved.' });
  }

  /** Picks an option of a Mantine select or multi-select by the field's label. */
  async choose(label: string, option: string): Promise<void> {
    await pickOption(this.page.getByRole('textbox', { name: label }), this.page.getByRole('option', { name: option }));
    await this.page.keyboard.press('Escape');
  }
}
