/**
 * Picks an option of a Mantine select (or multi-select): opens it by its input, typing `search`
 * first into a searchable one, and clicks the option. Should the dropdown close before the click
 * lands (the form re-rendering beside it while it opens), it is opened again, instead of waiting
 * for an option that is no longer shown (a clean-clone CI once waited 3 minutes on one).
 */
import { expect, type Locator } from '@playwright/test';

export async function pickOption(input: Locator, option: Locator, search?: string): Promise<void> {
  await expect(async () => {
    if (!(await option.isVisible())) {
      await input.click();
      if (search !== undefined) await input.fill(search);
    }
    await option.click({ timeout: 5_000 });
  }).toPass({ timeout: 60_000 });
}
