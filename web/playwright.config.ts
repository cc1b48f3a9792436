/**
 * The web UI's browser tests: Playwright driving Debian's chromium (installed by `make test` when
 * missing; Playwright cannot download browsers here) against a real Herald per worker
 * (web/tests/support/fixtures.ts). `make test` builds web/dist first.
 *
 * The browser is Debian's chromium-headless-shell when it is installed: the same Blink and V8 as
 * /usr/bin/chromium, without the full browser's windowing and compositing (what Playwright itself
 * runs for headless tests). The full browser in its headless mode took twice the CPU for the same
 * pages: ten sign-ins and loads of /reports, 64.6 s of the machine's CPU against 31.7 (its page
 * renderers 27.8 s against 8.6), and the whole suite 10.5 minutes against 7.0 (README, "The
 * web UI"). HERALD_CHROMIUM names another (HERALD_CHROMIUM=/usr/bin/chromium for the full one).
 */
import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const BROWSER = process.env.HERALD_CHROMIUM ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');

export default defineConfig({
  testDir: './tests',
  // One migrated template database per run (as the jest suite makes); each Herald clones it.
  globalSetup: '../tests/support/global-setup.mjs',
  globalTeardown: '../tests/support/global-teardown.mjs',
  testMatch: '**/*.spec.ts',
  outputDir: '../.data/playwright',
  fullyParallel: false,
  workers: process.env.HERALD_WEB_WORKERS ? Number(process.env.HERALD_WEB_WORKERS) : 2,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    locale: 'en-GB',
    timezoneId: 'Europe/Berlin',
    // The app honours it (theme.respectReducedMotion): no fades, so the accessibility checks
    // never measure a dialog's colours halfway through one (CI saw contrast "violations" so).
    reducedMotion: 'reduce',
    // A trace records every test's page as it goes (snapshots, and a screencast that chromium
    // encodes frame by frame): a quarter of a spec's time here, for files nobody reads in CI (its
    // output is the log). HERALD_WEB_TRACE=1 keeps one for each failing test, to chase a failure
    // locally (npx playwright show-trace .data/playwright/<test>/trace.zip).
    trace: process.env.HERALD_WEB_TRACE === '1' ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: BROWSER,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    },
  },
});
