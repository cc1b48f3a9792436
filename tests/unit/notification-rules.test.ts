/**
 * The notification rules on small fakes: which event makes which notifications for whom. A run
 * that failed or ended partial tells its report's owner and its creator; a channel turning
 * failing tells the owners of the reports that deliver through it; a system problem tells the
 * enabled admins, and an expiring key also its owner. Disabled users, unknown resources and other
 * events make none.
 */
import { randomUUID } from 'node:crypto';
import { notificationsFor } from '../../src/domain/notifications/rules.js';
import type { NotificationFacts, Recipient } from '../../src/domain/notifications/ports.js';
import type { Role } from '../../src/domain/identity/principal.js';

const NOW = new Date('2026-03-02T09:00:00.000Z');
const FINISHED = new Date('2026-03-02T08:59:30.000Z');

type RunFact = NonNullable<Awaited<ReturnType<NotificationFacts['run']>>>;
type ChannelFact = NonNullable<Awaited<ReturnType<NotificationFacts['channel']>>>;

class FakeFacts implements NotificationFacts {
  people = new Map<string, Recipient>();
  runs = new Map<string, RunFact>();
  channels = new Map<string, ChannelFact>();
  keys = new Map<string, string>();

  person(role: Role, enabled = true): string {
    const id = randomUUID();
    this.people.set(id, { id, role, enabled });
    return id;
  }
  async run(id: string) { return this.runs.get(id); }
  async channel(id: string) { return this.channels.get(id); }
  async apiKeyOwner(id: string) { return this.keys.get(id); }
  async users(ids: readonly string[]) { return ids.flatMap((id) => (this.people.has(id) ? [this.people.get(id)!] : [])); }
  async admins() { return [...this.people.values()].filter((p) => p.role === 'admin'); }
}

function world() {
  const facts = new FakeFacts();
  const owner = facts.person('editor');
  const runner = facts.person('editor');
  const reportId = randomUUID();
  const runId = randomUUID();
  facts.runs.set(runId, {
    id: runId, reportId, reportTitle: 'Daily sales', ownerId: owner, createdBy: runner, finishedAt: FINISHED,
    error: { code: 'query.failed', message: 'division by zero' },
  });
  return { facts, owner, runner, reportId, runId };
}

const runUpdated = (id: string, status: string) => ({ type: 'run.updated', data: { id, report_id: randomUUID(), status, trigger: 'manual' } });

describe('run.updated', () => {
  it('tells the report\'s owner and the run\'s creator of a failed run, about the run, once per report and kind', async () => {
    const w = world();
    const drafts = await notificationsFor(runUpdated(w.runId, 'failed'), w.facts, NOW);
    expect(drafts.map((d) => d.userId).sort()).toEqual([w.owner, w.runner].sort());
    expect(drafts[0]).toEqual({
      userId: expect.any(String), kind: 'run.failed', severity: 'critical', title: '"Daily sales" failed', body: 'query.failed: division by zero',
      resource: { type: 'run', id: w.runId }, dedupeKey: `run.failed:${w.reportId}`, at: FINISHED,
      toldBy: [`run.failed:${w.reportId}`, `run.partial:${w.reportId}`],
    });
  });

  it('tells of a partial run as a warning, and the owner once when they ran it themself', async () => {
    const w = world();
    w.facts.runs.set(w.runId, { ...w.facts.runs.get(w.runId)!, createdBy: w.owner, error: null });
    const drafts = await notificationsFor(runUpdated(w.runId, 'partial'), w.facts, NOW);
    expect(drafts).toEqual([expect.objectContaining({
      userId: w.owner, kind: 'run.partial', severity: 'warning', title: '"Daily sales" partly failed', body: null, dedupeKey: `run.partial:${w.reportId}`,
    })]);
  });

  it('tells nobody of other statuses, of a run that is gone, of a malformed id, or a disabled user', async () => {
    const w = world();
    for (const status of ['pending', 'running', 'success', 'skipped', 'cancelled']) {
      expect(await notificationsFor(runUpdated(w.runId, status), w.facts, NOW)).toEqual([]);
    }
    expect(await notificationsFor(runUpdated(randomUUID(), 'failed'), w.facts, NOW)).toEqual([]);
    expect(await notificationsFor(runUpdated('not-an-id', 'failed'), w.facts, NOW)).toEqual([]);
    w.facts.people.set(w.runner, { ...w.facts.people.get(w.runner)!, enabled: false });
    expect((await notificationsFor(runUpdated(w.runId, 'failed'), w.facts, NOW)).map((d) => d.userId)).toEqual([w.owner]);
  });
});

describe('channel.health', () => {
  it('tells the enabled owners of the reports delivering through a channel that turned failing, each once', async () => {
    const w = world();
    const away = w.facts.person('viewer', false);
    const channelId = randomUUID();
    w.facts.channels.set(channelId, {
      id: channelId, name: 'Ops hook', lastError: { code: 'channel.rejected', message: 'HTTP 410' }, reportOwnerIds: [w.owner, w.runner, w.owner, away],
    });
    const drafts = await notificationsFor({ type: 'channel.health', data: { id: channelId, health: 'failing', previous: 'healthy' } }, w.facts, NOW);
    expect(drafts.map((d) => d.userId).sort()).toEqual([w.owner, w.runner].sort());
    expect(drafts[0]).toEqual({
      userId: expect.any(String), kind: 'channel.failing', severity: 'warning', title: 'Channel "Ops hook" is failing', body: 'channel.rejected: HTTP 410',
      resource: { type: 'channel', id: channelId }, dedupeKey: `channel.failing:${channelId}`, at: NOW,
    });
    expect(await notificationsFor({ type: 'channel.health', data: { id: channelId, health: 'healthy', previous: 'failing' } }, w.facts, NOW)).toEqual([]);
    expect(await notificationsFor({ type: 'channel.health', data: { id: randomUUID(), health: 'failing', previous: 'healthy' } }, w.facts, NOW)).toEqual([]);
  });
});

describe('problems', () => {
  const problem = (type: string, extra: Record<string, unknown> = {}) => ({
    type,
    data: {
      id: randomUUID(), kind: 'scheduler.stalled', fingerprint: 'scheduler.stalled', severity: 'critical', message: 'The scheduler stopped',
      resource: null, opened_at: '2026-03-02T08:00:00.000Z', ...extra,
    },
  });

  it('tells every enabled admin, and nobody else, of a problem opened and resolved', async () => {
    const w = world();
    const admin = w.facts.person('admin');
    w.facts.person('admin', false);
    w.facts.person('viewer');
    const opened = problem('problem.opened');
    const drafts = await notificationsFor(opened, w.facts, NOW);
    expect(drafts).toEqual([{
      userId: admin, kind: 'problem.opened', severity: 'critical', title: 'The scheduler stopped', body: 'scheduler.stalled: open since 2026-03-02T08:00:00.000Z',
      resource: { type: 'problem', id: opened.data.id }, dedupeKey: 'problem.opened:scheduler.stalled', at: new Date('2026-03-02T08:00:00.000Z'),
      toldBy: ['problem.opened:scheduler.stalled'],
    }]);
    const resolved = await notificationsFor(problem('problem.resolved', { resolved_at: '2026-03-02T08:30:00.000Z' }), w.facts, NOW);
    expect(resolved).toEqual([expect.objectContaining({
      userId: admin, kind: 'problem.resolved', severity: 'info', title: 'Resolved: The scheduler stopped', dedupeKey: 'problem.resolved:scheduler.stalled',
      at: new Date('2026-03-02T08:30:00.000Z'),
    })]);
  });

  it('also tells the owner of an expiring key, about their key; an admin owner once, about the problem', async () => {
    const w = world();
    const admin = w.facts.person('admin');
    const viewer = w.facts.person('viewer');
    const keyId = randomUUID();
    w.facts.keys.set(keyId, viewer);
    const expiring = problem('problem.opened', {
      kind: 'api_key.expiring', fingerprint: `api_key.expiring:${keyId}`, severity: 'warning', resource: { type: 'api_key', id: keyId },
    });
    const drafts = await notificationsFor(expiring, w.facts, NOW);
    expect(drafts.map((d) => [d.userId, d.resource])).toEqual([[admin, { type: 'problem', id: expiring.data.id }], [viewer, { type: 'api_key', id: keyId }]]);
    expect(drafts.every((d) => d.severity === 'warning' && d.dedupeKey === `problem.opened:api_key.expiring:${keyId}`)).toBe(true);

    w.facts.keys.set(keyId, admin);
    expect((await notificationsFor(expiring, w.facts, NOW)).map((d) => [d.userId, d.resource?.type])).toEqual([[admin, 'problem']]);
    w.facts.people.set(viewer, { ...w.facts.people.get(viewer)!, enabled: false });
    w.facts.keys.set(keyId, viewer);
    expect((await notificationsFor(expiring, w.facts, NOW)).map((d) => d.userId)).toEqual([admin]);
  });

  it('tells a key owner nothing of other problems, nor of a key the problem does not name', async () => {
    const w = world();
    const viewer = w.facts.person('viewer');
    const keyId = randomUUID();
    w.facts.keys.set(keyId, viewer);
    expect(await notificationsFor(problem('problem.opened', { resource: { type: 'api_key', id: keyId } }), w.facts, NOW)).toEqual([]);
    expect(await notificationsFor(problem('problem.opened', { kind: 'api_key.expiring', resource: null }), w.facts, NOW)).toEqual([]);
  });
});

it('makes nothing of other events', async () => {
  const w = world();
  for (const type of ['report.updated', 'notification.created', 'run.cancel', 'reset']) {
    expect(await notificationsFor({ type, data: { id: w.runId, status: 'failed', health: 'failing', fingerprint: 'x' } }, w.facts, NOW)).toEqual([]);
  }
});
