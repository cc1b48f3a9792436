import type { Page } from '@playwright/test';

/** A screenshot of the page for people to look at, when HERALD_SCREENS names a folder (not part of the repo). */
export async function screen(page: Page, name: string): Promise<void> {
  const dir = process.env.HERALD_SCREENS;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}
