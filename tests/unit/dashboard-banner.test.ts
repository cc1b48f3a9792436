/**
 * The dashboard's health banner as a pure function: readiness components and open system problems
 * in, level and items out (critical first, then oldest first, a readiness item after the problems
 * of its severity); and the service around it, on a fake read model and a manual clock.
 */
import { manualClock } from '../../src/core/clock.js';
import { bannerOf, componentMessage } from '../../src/domain/dashboard/banner.js';
import { createDashboardService } from '../../src/domain/dashboard/dashboard-service.js';
import type { DashboardFigures, FiguresQuery, OpenProblem } from '../../src/domain/dashboard/model.js';
import type { Readiness } from '../../src/domain/health/readiness.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const ago = (minutes: number) => new Date(T0.getTime() - minutes * 60_000);
const ok = { status: 'ok' } as const;
const down = (detail: string) => ({ status: 'unhealthy', detail }) as const;
const problem = (kind: string, severity: OpenProblem['severity'], minutesAgo: number, message = `${kind} is open`): OpenProblem =>
  ({ kind, severity, message, openedAt: ago(minutesAgo) });

describe('bannerOf', () => {
  it('is ok with no item when every component is healthy and no problem is open', () => {
    expect(bannerOf({ store: ok, migrations: ok, scheduler: ok }, [])).toEqual({ level: 'ok', items: [] });
  });

  it('is warning when the open problems are warnings only, with their kind, message and opening time', () => {
    const banner = bannerOf({ store: ok, migrations: ok }, [problem('queue.backlog', 'warning', 5, 'Runs wait longer than usual')]);
    expect(banner).toEqual({
      level: 'warning',
      items: [{ code: 'queue.backlog', severity: 'warning', message: 'Runs wait longer than usual', since: ago(5) }],
    });
  });

  it('is critical when a critical problem is open, whatever the warnings', () => {
    const banner = bannerOf({ store: ok }, [problem('channel.failing', 'warning', 60), problem('scheduler.stalled', 'critical', 2)]);
    expect(banner.level).toBe('critical');
    expect(banner.items.map((i) => i.code)).toEqual(['scheduler.stalled', 'channel.failing']);
  });

  it('turns an unhealthy component into a critical readiness.<component> item with a fixed message, never its detail', () => {
    const banner = bannerOf({ store: ok, migrations: down('3 migration(s) not applied; run herald migrate'), scheduler: ok }, []);
    expect(banner).toEqual({
      level: 'critical',
      items: [{ code: 'readiness.migrations', severity: 'critical', message: componentMessage('migrations'), since: null }],
    });
    expect(JSON.stringify(banner)).not.toContain('herald migrate');
    // A component the banner does not know by name still reads generically.
    expect(bannerOf({ store: ok, cache: down('postgres://u:secret@db/x unreachable') }, []).items)
      .toEqual([{ code: 'readiness.cache', severity: 'critical', message: 'The cache component is unhealthy.', since: null }]);
  });

  it('orders critical first, then oldest first, a readiness item (as of now) after the problems of its severity, then by code', () => {
    const banner = bannerOf(
      { store: ok, scheduler: down('no tick'), gitops: down('failed') },
      [
        problem('channel.failing', 'warning', 30),
        problem('disk.low', 'critical', 10),
        problem('queue.backlog', 'warning', 90),
        problem('heartbeat.failing', 'critical', 120),
      ],
    );
    expect(banner.level).toBe('critical');
    expect(banner.items.map((i) => [i.code, i.severity])).toEqual([
      ['heartbeat.failing', 'critical'],
      ['disk.low', 'critical'],
      ['readiness.gitops', 'critical'],
      ['readiness.scheduler', 'critical'],
      ['queue.backlog', 'warning'],
      ['channel.failing', 'warning'],
    ]);
  });

  it('skips components that are absent (no scheduler on this process)', () => {
    expect(bannerOf({ store: ok, migrations: ok, scheduler: undefined }, [])).toEqual({ level: 'ok', items: [] });
  });
});

describe('the dashboard service', () => {
  const figures = (over: Partial<DashboardFigures> = {}): DashboardFigures => ({
    reports: { active: 2, paused: 1 },
    runsLast24h: { success: 3, partial: 0, skipped: 1, failed: 1, cancelled: 0 },
    failingReports: 1,
    recentFailures: [],
    nextRuns: [],
    channels: { healthy: 1, failing: 0, unknown: 0 },
    queue: { pending: 0, oldestPendingAt: null },
    openProblems: [],
    ...over,
  });
  const readiness = (components: Readiness['components']) => async (): Promise<Readiness> =>
    ({ status: Object.values(components).every((c) => c.status === 'ok') ? 'ok' : 'unhealthy', components });

  it('asks the read model for the last 24 hours by the clock and five of each list, and measures the queue wait on the same clock', async () => {
    const clock = manualClock(T0);
    const asked: FiguresQuery[] = [];
    const service = createDashboardService({
      readModel: { figures: async (q) => { asked.push(q); return figures({ queue: { pending: 4, oldestPendingAt: new Date(T0.getTime() - 90_500) } }); } },
      readiness: readiness({ store: ok, migrations: ok }),
      clock,
    });
    const d = await service.get();
    expect(asked).toEqual([{
      finishedAfter: new Date(T0.getTime() - 24 * 3600_000), finishedBy: T0, recentFailures: 5, nextRuns: 5, openProblems: 50,
    }]);
    expect(d.queue).toEqual({ pending: 4, oldestPendingSeconds: 90 });
    expect(d.banner).toEqual({ level: 'ok', items: [] });
    expect(d).not.toHaveProperty('openProblems');
    clock.advance(60_000);
    expect((await service.get()).queue.oldestPendingSeconds).toBe(150);
  });

  it('never answers a negative wait (a run queued by a clock a little ahead), and null when none waits', async () => {
    const clock = manualClock(T0);
    let oldest: Date | null = new Date(T0.getTime() + 2_000);
    const service = createDashboardService({
      readModel: { figures: async () => figures({ queue: { pending: oldest ? 1 : 0, oldestPendingAt: oldest } }) },
      readiness: readiness({ store: ok, migrations: ok }),
      clock,
    });
    expect((await service.get()).queue.oldestPendingSeconds).toBe(0);
    oldest = null;
    expect((await service.get()).queue).toEqual({ pending: 0, oldestPendingSeconds: null });
  });

  it('makes the banner from the readiness and the open problems it read', async () => {
    const service = createDashboardService({
      readModel: { figures: async () => figures({ openProblems: [problem('channel.failing', 'warning', 3)] }) },
      readiness: readiness({ store: ok, migrations: ok, scheduler: down('no tick') }),
      clock: manualClock(T0),
    });
    const { banner } = await service.get();
    expect(banner.level).toBe('critical');
    expect(banner.items.map((i) => i.code)).toEqual(['readiness.scheduler', 'channel.failing']);
  });
});
