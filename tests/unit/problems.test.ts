/**
 * The problems' checks (src/domain/alerts/problems.ts): a snapshot of what Herald knows in, the
 * problems that hold out, each with its stable fingerprint, severity and a message fit for every role.
 */
import { detectProblems } from '../../src/domain/alerts/problems.js';
import { DEFAULT_THRESHOLDS } from '../../src/domain/alerts/model.js';
import type { ProblemSnapshot } from '../../src/domain/alerts/ports.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);
const ahead = (days: number) => new Date(NOW.getTime() + days * 86_400_000);

function healthy(overrides: Partial<ProblemSnapshot> = {}): ProblemSnapshot {
  return {
    now: NOW, lastSchedulerTickAt: ago(5), evaluatingSince: ago(3600),
    queue: { redisAnswers: true, redisError: null, pending: 0, oldestPendingAt: null },
    lostRuns: { count: 0, latestAt: null }, failingChannels: [], failingReports: [],
    storage: { writable: true, error: null, freePercent: 55 }, retention: { failing: false, error: null, since: null },
    gitops: null, ai: null, expiringKeys: [], ...overrides,
  };
}
const fingerprints = (s: ProblemSnapshot, t = DEFAULT_THRESHOLDS) => detectProblems(s, t).map((p) => p.fingerprint);

describe('detectProblems', () => {
  it('finds nothing on a healthy instance', () => {
    expect(detectProblems(healthy(), DEFAULT_THRESHOLDS)).toEqual([]);
  });

  it('opens scheduler.stalled once no tick completed past the grace, counting a fresh fleet from its start', () => {
    expect(fingerprints(healthy({ lastSchedulerTickAt: ago(179) }))).toEqual([]);
    const [p] = detectProblems(healthy({ lastSchedulerTickAt: ago(181) }), DEFAULT_THRESHOLDS);
    expect(p).toMatchObject({ kind: 'scheduler.stalled', fingerprint: 'scheduler.stalled', severity: 'critical', resource: null });
    expect(p!.message).toContain('3 min');
    expect(fingerprints(healthy({ lastSchedulerTickAt: null, evaluatingSince: ago(60) }))).toEqual([]);
    expect(fingerprints(healthy({ lastSchedulerTickAt: null, evaluatingSince: ago(600) }))).toEqual(['scheduler.stalled']);
    expect(fingerprints(healthy({ lastSchedulerTickAt: ago(100) }), { ...DEFAULT_THRESHOLDS, schedulerGraceSeconds: 60 })).toEqual(['scheduler.stalled']);
  });

  it('opens queue.unavailable when Redis does not answer, and queue.backlog past the threshold', () => {
    expect(fingerprints(healthy({ queue: { redisAnswers: false, redisError: 'ECONNREFUSED', pending: 0, oldestPendingAt: null } }))).toEqual(['queue.unavailable']);
    expect(fingerprints(healthy({ queue: { redisAnswers: true, redisError: null, pending: 3, oldestPendingAt: ago(599) } }))).toEqual([]);
    const [p] = detectProblems(healthy({ queue: { redisAnswers: true, redisError: null, pending: 3, oldestPendingAt: ago(900) } }), DEFAULT_THRESHOLDS);
    expect(p).toMatchObject({ kind: 'queue.backlog', severity: 'warning' });
    expect(p!.message).toBe('3 run(s) waiting for a worker; the oldest for 15 min');
  });

  it('names each failing channel and report by its own fingerprint and resource', () => {
    const problems = detectProblems(healthy({
      failingChannels: [{ id: 'c1', name: 'Ops hook', since: ago(60) }, { id: 'c2', name: 'Mail', since: null }],
      failingReports: [{ id: 'r1', title: 'Daily sales', streak: 3, lastError: 'query.failed' }],
    }), DEFAULT_THRESHOLDS);
    expect(problems.map((p) => [p.fingerprint, p.resource])).toEqual([
      ['channel.failing:c1', { type: 'channel', id: 'c1' }],
      ['channel.failing:c2', { type: 'channel', id: 'c2' }],
      ['report.failing:r1', { type: 'report', id: 'r1' }],
    ]);
    expect(problems[2]!.message).toBe('The report "Daily sales" failed 3 times in a row (query.failed)');
  });

  it('opens runs.lost, storage.error before storage.nearly_full, retention.failing and gitops.failing', () => {
    expect(fingerprints(healthy({ lostRuns: { count: 2, latestAt: ago(30) } }))).toEqual(['runs.lost']);
    expect(fingerprints(healthy({ storage: { writable: false, error: 'EACCES', freePercent: 2 } }))).toEqual(['storage.error']);
    const [full] = detectProblems(healthy({ storage: { writable: true, error: null, freePercent: 7.5 } }), DEFAULT_THRESHOLDS);
    expect([full!.fingerprint, full!.severity, full!.message]).toEqual(['storage.nearly_full', 'warning', 'The data volume is nearly full: 7.5 % free']);
    expect(detectProblems(healthy({ storage: { writable: true, error: null, freePercent: 3 } }), DEFAULT_THRESHOLDS)[0]!.severity).toBe('critical');
    expect(fingerprints(healthy({ storage: { writable: true, error: null, freePercent: null } }))).toEqual([]);
    expect(fingerprints(healthy({ retention: { failing: true, error: 'EIO', since: ago(7200) } }))).toEqual(['retention.failing']);
    expect(fingerprints(healthy({ gitops: { failing: true } }))).toEqual(['gitops.failing']);
    expect(fingerprints(healthy({ gitops: { failing: false } }))).toEqual([]);
  });

  it('tells of an API key at 14, 7 and 1 days before it expires, each a stage of its own', () => {
    const stageAt = (days: number) => detectProblems(healthy({ expiringKeys: [{ id: 'k1', name: 'ci', expiresAt: ahead(days) }] }), DEFAULT_THRESHOLDS)[0];
    expect(stageAt(13)).toMatchObject({ fingerprint: 'api_key.expiring:k1', stage: '14', severity: 'warning', resource: { type: 'api_key', id: 'k1' } });
    expect(stageAt(6.5)).toMatchObject({ stage: '7', severity: 'warning' });
    expect(stageAt(0.5)).toMatchObject({ stage: '1', severity: 'critical' });
    expect(stageAt(0.5)!.message).toContain('expires in 12 h');
    expect(stageAt(13)!.message).toContain('expires in 13 day(s)');
  });

  it('never puts an address or secret in a message', () => {
    const all = detectProblems(healthy({
      lastSchedulerTickAt: ago(4000), queue: { redisAnswers: false, redisError: 'connect ECONNREFUSED 10.0.0.7:6379', pending: 1, oldestPendingAt: ago(4000) },
      storage: { writable: false, error: 'EACCES /var/lib/herald', freePercent: null },
    }), DEFAULT_THRESHOLDS);
    for (const p of all) expect(p.message).not.toMatch(/10\.0\.0\.7|6379|\/var\/lib/);
  });
});
