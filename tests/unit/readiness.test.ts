import { checkReadiness, healthOf, type ReadinessProbes } from '../../src/domain/health/readiness.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

function probes(overrides: Partial<ReadinessProbes> = {}): ReadinessProbes {
  return {
    storeAnswers: async () => true,
    pendingMigrations: async () => 0,
    now: () => T0,
    ...overrides,
  };
}

function scheduler(options: { tickSeconds?: number; startedAt?: Date; lastTickAt?: Date }) {
  return { tickSeconds: options.tickSeconds ?? 5, startedAt: options.startedAt ?? T0, lastTickAt: () => options.lastTickAt };
}

describe('checkReadiness', () => {
  it('reports the configuration directory unhealthy only after three failed reconciles in a row', async () => {
    for (const [failures, status] of [[0, 'ok'], [2, 'ok'], [3, 'unhealthy'], [7, 'unhealthy']] as const) {
      const r = await checkReadiness(probes({ scheduler: scheduler({ lastTickAt: T0 }), gitops: { failures: () => failures, unhealthyAfter: 3 } }));
      expect([failures, r.status, r.components.gitops?.status, r.components.scheduler?.status]).toEqual([failures, status, status, 'ok']);
    }
  });

  it('is ok when the store answers and no migration is pending', async () => {
    await expect(checkReadiness(probes())).resolves.toEqual({
      status: 'ok', components: { store: { status: 'ok' }, migrations: { status: 'ok' } },
    });
  });

  it('reports redis unhealthy (and the whole unhealthy) when Redis does not answer, ok when it does', async () => {
    const down = await checkReadiness(probes({ redisAnswers: async () => false }));
    expect([down.status, down.components.redis?.status]).toEqual(['unhealthy', 'unhealthy']);
    const failing = await checkReadiness(probes({ redisAnswers: async () => { throw new Error('ECONNREFUSED'); } }));
    expect(failing.components.redis?.status).toBe('unhealthy');
    const up = await checkReadiness(probes({ redisAnswers: async () => true }));
    expect([up.status, up.components.redis]).toEqual(['ok', { status: 'ok' }]);
    expect(healthOf(down)).toEqual({ healthy: false, reason: expect.stringMatching(/^redis: Redis does not answer/) });
    expect(healthOf(up)).toEqual({ healthy: true, reason: null });
  });

  it('reports redis ok but degraded (the whole ok and marked degraded, still healthy) while its primary switches under Sentinel, and asks only when Redis does not answer', async () => {
    let asked = 0;
    const switching = (answer: boolean) => async () => { asked += 1; return answer; };
    const during = await checkReadiness(probes({ redisAnswers: async () => false, redisSwitching: switching(true) }));
    expect(during).toEqual({
      status: 'ok', degraded: true,
      components: { store: { status: 'ok' }, migrations: { status: 'ok' }, redis: { status: 'ok', degraded: true, detail: expect.stringMatching(/switching under Sentinel/) } },
    });
    expect(healthOf(during)).toEqual({ healthy: true, reason: null });
    const over = await checkReadiness(probes({ redisAnswers: async () => false, redisSwitching: switching(false) }));
    expect([over.status, over.components.redis?.status]).toEqual(['unhealthy', 'unhealthy']);
    const storeDown = await checkReadiness(probes({ storeAnswers: async () => false, redisAnswers: async () => false, redisSwitching: switching(true) }));
    expect([storeDown.status, storeDown.components.redis]).toEqual(['unhealthy', expect.objectContaining({ status: 'ok', degraded: true })]);
    expect(asked).toBe(3);
    const up = await checkReadiness(probes({ redisAnswers: async () => true, redisSwitching: switching(true) }));
    expect([up.status, up.degraded, up.components.redis, asked]).toEqual(['ok', undefined, { status: 'ok' }, 3]);
  });

  it('has no scheduler component without a scheduler probe', async () => {
    const r = await checkReadiness(probes());
    expect(Object.keys(r.components).sort()).toEqual(['migrations', 'store']);
  });

  it('reports store and migrations unhealthy when the store does not answer', async () => {
    let asked = false;
    const r = await checkReadiness(probes({
      storeAnswers: async () => false,
      pendingMigrations: async () => { asked = true; return 0; },
    }));
    expect(r.status).toBe('unhealthy');
    expect(r.components.store.status).toBe('unhealthy');
    expect(r.components.migrations.status).toBe('unhealthy');
    expect(asked).toBe(false);
  });

  it('reports migrations unhealthy while some are pending', async () => {
    const r = await checkReadiness(probes({ pendingMigrations: async () => 2 }));
    expect(r.status).toBe('unhealthy');
    expect(r.components.store).toEqual({ status: 'ok' });
    expect(r.components.migrations).toMatchObject({ status: 'unhealthy', detail: expect.stringContaining('2') });
  });

  it('reports migrations unhealthy when their state cannot be read', async () => {
    const r = await checkReadiness(probes({ pendingMigrations: async () => { throw new Error('relation is locked'); } }));
    expect(r.status).toBe('unhealthy');
    expect(r.components.migrations.status).toBe('unhealthy');
  });

  describe('the scheduler component', () => {
    const tick = 5_000;

    it('is ok while the last tick is within three ticks', async () => {
      const s = scheduler({ startedAt: at(-60_000), lastTickAt: at(0) });
      for (const now of [0, tick, 3 * tick]) {
        const r = await checkReadiness(probes({ scheduler: s, now: () => at(now) }));
        expect(r.components.scheduler).toEqual({ status: 'ok' });
        expect(r.status).toBe('ok');
      }
    });

    it('is unhealthy once the last tick is older than three ticks', async () => {
      const s = scheduler({ startedAt: at(-60_000), lastTickAt: at(0) });
      for (const now of [3 * tick + 1, 10 * tick]) {
        const r = await checkReadiness(probes({ scheduler: s, now: () => at(now) }));
        expect(r.components.scheduler?.status).toBe('unhealthy');
        expect(r.status).toBe('unhealthy');
        expect(r.components.store).toEqual({ status: 'ok' });
      }
    });

    it('uses the tick length of the scheduler', async () => {
      const s = scheduler({ tickSeconds: 60, startedAt: at(-600_000), lastTickAt: at(0) });
      expect((await checkReadiness(probes({ scheduler: s, now: () => at(179_000) }))).components.scheduler?.status).toBe('ok');
      expect((await checkReadiness(probes({ scheduler: s, now: () => at(181_000) }))).components.scheduler?.status).toBe('unhealthy');
    });

    it('is ok within the grace after start before the first tick, and unhealthy after it', async () => {
      const s = scheduler({ startedAt: at(0), lastTickAt: undefined });
      expect((await checkReadiness(probes({ scheduler: s, now: () => at(1_000) }))).components.scheduler).toEqual({ status: 'ok' });
      expect((await checkReadiness(probes({ scheduler: s, now: () => at(3 * tick) }))).components.scheduler).toEqual({ status: 'ok' });
      const late = await checkReadiness(probes({ scheduler: s, now: () => at(3 * tick + 1) }));
      expect(late.components.scheduler?.status).toBe('unhealthy');
      expect(late.status).toBe('unhealthy');
    });
  });
});
