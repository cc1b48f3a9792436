/**
 * The home page and the notifications in the browser against a real Herald: the dashboard's
 * counts, health banner, next runs and latest failures as GET /dashboard gives them, following a
 * failure live; the bell's unread count rising live when a notification is made, mark read from
 * its dropdown, and the /notifications page with its filters.
 */
import { screen } from './support/screens.js';
import { test, expect, signIn, checkA11y } from './support/fixtures.js';
import { arrangeRuns, finished, queueRun, BROKEN_SQL, ITEMS_SQL, type RunsData } from './support/runs-data.js';
import { DashboardPage } from './pages/DashboardPage.js';
import { NotificationsBell } from './pages/NotificationsBell.js';

let data: RunsData;

test.beforeAll(async ({ herald }) => { data = await arrangeRuns(herald, 'Dashboard spec'); });
test.afterAll(async () => { await data?.drop(); });

/** A daily schedule two hours from now (UTC): the soonest of the next runs, and not due during the test. */
function soonSchedule(): { cron: string; timezone: string } {
  const at = new Date(Date.now() + 2 * 3600_000);
  return { cron: `${at.getUTCMinutes()} ${at.getUTCHours()} * * *`, timezone: 'UTC' };
}

test('the dashboard shows the counts, the banner, the next runs and the latest failure, live', async ({ page, herald }) => {
  const scheduled = await data.report('Dashboard scheduled', ITEMS_SQL, { deliver: false, schedule: soonSchedule() });
  const broken = await data.report('Dashboard broken', BROKEN_SQL, { deliver: false });
  expect(scheduled).toBeTruthy();
  await signIn(page);
  const dash = new DashboardPage(page);
  await dash.open();
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
  const before = await herald.seed.call('getDashboard');
  await expect(dash.value('Active reports')).toHaveText(String(before.reports.active));
  await expect(dash.value('Failed runs (24 hours)')).toHaveText(String(before.runs_last_24h.failed));
  await expect(dash.value('Reports whose last run failed')).toHaveText(String(before.failing_reports));
  await expect(dash.value('Runs waiting for a worker')).toHaveText(String(before.queue.pending));
  if (before.banner.level === 'ok') await expect(page.getByRole('status').filter({ hasText: 'Everything is working.' })).toBeVisible();
  else for (const item of before.banner.items) await expect(page.getByText(item.message)).toBeVisible();
  await expect(dash.nextRuns.getByRole('link', { name: 'Dashboard scheduled' })).toBeVisible();

  // A run fails while the page is open: the counts and the latest failures follow.
  const runId = await queueRun(herald.seed, broken, false);
  expect(await finished(herald.seed, runId)).toBe('failed');
  await expect(dash.value('Failed runs (24 hours)')).toHaveText(String(before.runs_last_24h.failed + 1));
  const latest = dash.failures.getByRole('listitem').first();
  await expect(latest).toContainText('Dashboard broken');
  await expect(latest).toContainText('query.failed');
  await expect(latest).toContainText('Failed');
  await checkA11y(page);
  await screen(page, 'web-runs-dashboard');
  await latest.getByRole('link', { name: 'Dashboard broken' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Run of Dashboard broken' })).toBeVisible();
});

test('the bell\'s count rises live when a notification comes, and falls when it is marked read', async ({ page, herald }) => {
  const broken = await data.report('Bell broken', BROKEN_SQL, { deliver: false });
  await herald.seed.call('markAllNotificationsRead', { body: {} });
  await signIn(page);
  const dash = new DashboardPage(page);
  await dash.open();
  const bell = new NotificationsBell(page);
  await expect(bell.unread(0)).toBeVisible();

  // The seed's key belongs to the signed-in admin, who owns the report: its failure is news for them.
  const runId = await queueRun(herald.seed, broken, false);
  // Other specs share this Herald (a failing channel is news too): wait for this run's notification itself.
  await expect.poll(async () => (await herald.seed.call('listNotifications', { query: { limit: 50 } })).items
    .some((n) => n.title === '"Bell broken" failed' && n.read_at === null), { timeout: 30_000 }).toBe(true);
  await expect(bell.button).toHaveAccessibleName(/^[1-9]\d* unread notifications?$/);
  const dropdown = await bell.open();
  const news = dropdown.getByRole('article', { name: '"Bell broken" failed' });
  await expect(news).toContainText('query.failed');
  await expect(news).toContainText('Unread');
  await checkA11y(page);
  await screen(page, 'web-runs-bell');
  const count = Number(/^(\d+)/.exec((await bell.button.getAttribute('aria-label')) ?? '')?.[1]);
  await news.getByRole('button', { name: 'Mark “"Bell broken" failed” read' }).click();
  await expect(bell.unread(count - 1)).toBeVisible();
  await expect(news.getByRole('button', { name: /^Mark/ })).toHaveCount(0);

  // The notification leads to its run.
  await news.getByRole('link', { name: '"Bell broken" failed' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await expect(dropdown).toBeHidden();

  // The full list, filtered by read state in the address.
  await bell.open();
  await page.getByRole('link', { name: 'All notifications' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  const list = page.getByRole('list', { name: 'Notifications' });
  await expect(list.getByRole('article', { name: '"Bell broken" failed' })).toBeVisible();
  await page.getByRole('radio', { name: 'Read', exact: true }).dispatchEvent('click');
  await expect(page).toHaveURL(/\/notifications\?unread=false$/);
  await expect(list.getByRole('article', { name: '"Bell broken" failed' })).toBeVisible();
  await page.getByRole('radio', { name: 'Unread', exact: true }).dispatchEvent('click');
  await expect(page).toHaveURL(/\/notifications\?unread=true$/);
  await expect(list.getByRole('article', { name: '"Bell broken" failed' })).toHaveCount(0);
  await checkA11y(page);
  await screen(page, 'web-runs-notifications');
  // Mark all read empties the unread list and the bell.
  await herald.seed.call('runReport', { path: { reportId: broken }, body: { deliver: false } });
  await expect(list.getByRole('article', { name: '"Bell broken" failed' })).toBeVisible();
  await page.getByRole('button', { name: 'Mark all read' }).click();
  await expect(page.getByText('Nothing unread.')).toBeVisible();
  await expect(bell.unread(0)).toBeVisible();
});
