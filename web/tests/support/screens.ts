import type { Locator, Page } from '@playwright/test';

/**
 * A screenshot for people to look at, when HERALD_SCREENS names a folder (outside the repo): the
 * whole page from its top, or one part of it.
 */
export async function screen(page: Page, name: string, part?: Locator): Promise<void> {
  const dir = process.env.HERALD_SCREENS;
  if (!dir) return;
  if (part) {
    await part.screenshot({ path: `${dir}/${name}.png` });
    return;
  }
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}
