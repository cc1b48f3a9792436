/**
 * The browser tests' fixtures: `herald` (one real Herald per worker, with an admin and a seed API
 * client), `signIn(page, user)` (a session through the API, as the browser's own cookies), and
 * `checkA11y(page)` (axe: no serious or critical violation).
 */
import { test as base, expect, type Page } from '@playwright/test';
import { AxeBuilder } from '@axe-core/playwright';
import { ADMIN, startHerald, type RunningHerald } from './herald.js';

export { expect, ADMIN };

export const test = base.extend<{ baseURL: string }, { herald: RunningHerald }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture's dependencies from this pattern
  herald: [async ({}, use) => {
    const h = await startHerald();
    await use(h);
    await h.stop();
  }, { scope: 'worker', timeout: 240_000 }],
  baseURL: async ({ herald }, use) => { await use(herald.url); },
});

/** Signs the page's browser context in through the API (the same cookies a sign-in sets). */
export async function signIn(page: Page, user: { email: string; password: string } = ADMIN): Promise<void> {
  const res = await page.request.post('/api/v1/auth/login', { data: { email: user.email, password: user.password } });
  expect(res.status(), await res.text()).toBe(200);
}

/** What checkA11y reads of the page's animations (this file is typed without the DOM's library). */
interface PageWithAnimations {
  document: { getAnimations(): Array<{ playState: string; effect: { getComputedTiming(): { endTime?: number | string } } | null }> };
}

/** axe on the page as it is now: serious and critical violations fail the test, with their targets. */
export async function checkA11y(page: Page): Promise<void> {
  // Once what moves has settled: a dialog's fade-in measured halfway has colours it never keeps
  // (CI once saw a contrast "violation" on a button of a dialog still fading in).
  // (An endless one, a spinner, never settles: it is not waited for.)
  await page.waitForFunction(() => (globalThis as unknown as PageWithAnimations).document.getAnimations()
    .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity));
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
}
