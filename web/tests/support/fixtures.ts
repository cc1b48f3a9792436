/**
 * The browser tests' fixtures: `herald` (one real Herald per worker, with an admin and a seed API
 * client), `signIn(page, user)` (a session through the API, as the browser's own cookies), and
 * `checkA11y(page)` (axe: no serious or critical violation).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import { ADMIN, startHerald, type RunningHerald } from './herald.js';

export { expect, ADMIN };

const answered = (line: string): boolean => {
  try {
    const entry = JSON.parse(line) as { message?: string; status?: number };
    return entry.message === 'http request' && (entry.status ?? 500) < 500;
  } catch { return false; }
};

/** The last lines of a Herald's log, attached to a failed test (CI keeps only the console). */
export async function attachHeraldLog(herald: RunningHerald | undefined, testInfo: TestInfo): Promise<void> {
  if (!herald || testInfo.status === testInfo.expectedStatus) return;
  // Every line but the answered requests (at info, one per request: they would crowd out the rest).
  const lines = herald.logs().split('\n').filter((l) => l.trim() !== '' && !answered(l));
  await testInfo.attach('herald log (last 200 lines)', { body: lines.slice(-200).join('\n'), contentType: 'text/plain' });
}

export const test = base.extend<{ baseURL: string; heraldLog: void }, { herald: RunningHerald }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixture's dependencies from this pattern
  herald: [async ({}, use) => {
    const h = await startHerald();
    await use(h);
    await h.stop();
  }, { scope: 'worker', timeout: 240_000 }],
  baseURL: async ({ herald }, use) => { await use(herald.url); },
  heraldLog: [async ({ herald }, use, testInfo) => {
    await use();
    await attachHeraldLog(herald, testInfo);
  }, { auto: true }],
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

/** axe-core itself, read once per test worker. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What checkA11y reads of axe in the page (this file is typed without the DOM's library). */
interface AxeInPage {
  axe: {
    run(context: unknown, options: { resultTypes: string[] }): Promise<{
      violations: Array<{ id: string; impact?: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
    }>;
  };
  document: unknown;
}

/**
 * axe on the page as it is now, every rule as axe-core's defaults have them: serious and critical
 * violations fail the test, with their targets.
 *
 * axe-core is put into a document once (a navigation makes a new one; the app's own route changes
 * keep it) and run there with `axe.run`. `AxeBuilder.analyze()` injected its 600 kB into the page
 * twice on every call and opened a blank page to finish each run (`axe.finishRun`, for cross-origin
 * frames, which Herald's pages have none of): about half of every check's 2–4 s, on 121 checks.
 * `resultTypes: ['violations']` trims the details of the passes only; every rule still runs.
 */
export async function checkA11y(page: Page): Promise<void> {
  // Once what moves has settled: a dialog's fade-in measured halfway has colours it never keeps
  // (CI once saw a contrast "violation" on a button of a dialog still fading in).
  // (An endless one, a spinner, never settles: it is not waited for.)
  await page.waitForFunction(() => (globalThis as unknown as PageWithAnimations).document.getAnimations()
    .every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity));
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const w = globalThis as unknown as AxeInPage;
    const results = await w.axe.run(w.document, { resultTypes: ['violations'] });
    return results.violations.map((v) => ({
      id: v.id, impact: v.impact ?? null, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
}
