/**
 * Which notifications an event makes, and for whom (the notifier writes them, notifier.ts):
 * - run.updated failed / partial: the report's owner and the run's creator; kind run.failed
 *   (critical) / run.partial (warning), about the run; one unread per report and kind.
 * - channel.health turned failing: the owners of the reports whose deliveries use the channel;
 *   kind channel.failing (warning), about the channel.
 * - problem.opened / problem.resolved (the alerts feature's): every admin, about the problem; for
 *   an expiring API key (kind api_key.expiring about {type: api_key}) also its owner, about the key.
 * Disabled users are never told, and nobody of what they may not read (runs, reports and channels
 * every role reads; problems only admins; an API key its owner).
 */
import { isUuid } from '../../core/ids.js';
import type { NotificationDraft, NotificationKind, NotificationSeverity } from './model.js';
import type { NotificationFacts, Recipient } from './ports.js';

export interface EventLike {
  type: string;
  data: Record<string, unknown>;
}

const text = (data: Record<string, unknown>, field: string): string | undefined =>
  typeof data[field] === 'string' ? data[field] : undefined;
/** An id the event names (an event that names none, or a malformed one, makes no notification). */
const id = (data: Record<string, unknown>, field: string): string | undefined => {
  const value = text(data, field);
  return value !== undefined && isUuid(value) ? value : undefined;
};
const date = (value: string | undefined): Date | undefined => {
  const d = value === undefined ? undefined : new Date(value);
  return d && !Number.isNaN(d.getTime()) ? d : undefined;
};
const explain = (error: { code: string; message: string } | null): string | null => (error ? `${error.code}: ${error.message}` : null);

/** The enabled users among `ids`, each once. */
async function enabled(facts: NotificationFacts, ids: ReadonlyArray<string | null>): Promise<Recipient[]> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return [];
  return (await facts.users(wanted)).filter((u) => u.enabled);
}

const RUN_OUTCOMES: Record<string, { kind: NotificationKind; severity: NotificationSeverity; verb: string }> = {
  failed: { kind: 'run.failed', severity: 'critical', verb: 'failed' },
  partial: { kind: 'run.partial', severity: 'warning', verb: 'partly failed' },
};

async function runEnded(data: Record<string, unknown>, facts: NotificationFacts, now: Date): Promise<NotificationDraft[]> {
  const outcome = RUN_OUTCOMES[text(data, 'status') ?? ''];
  const runId = id(data, 'id');
  if (!outcome || !runId) return [];
  const run = await facts.run(runId);
  if (!run) return [];
  const at = run.finishedAt ?? date(text(data, 'finished_at')) ?? now;
  const toldBy = [`run.failed:${run.reportId}`, `run.partial:${run.reportId}`];
  return (await enabled(facts, [run.ownerId, run.createdBy])).map((u) => ({
    userId: u.id, kind: outcome.kind, severity: outcome.severity, title: `"${run.reportTitle}" ${outcome.verb}`,
    body: explain(run.error), resource: { type: 'run', id: run.id }, dedupeKey: `${outcome.kind}:${run.reportId}`, at, toldBy,
  }));
}

async function channelFailing(data: Record<string, unknown>, facts: NotificationFacts, now: Date): Promise<NotificationDraft[]> {
  const channelId = id(data, 'id');
  if (text(data, 'health') !== 'failing' || !channelId) return [];
  const channel = await facts.channel(channelId);
  if (!channel) return [];
  return (await enabled(facts, channel.reportOwnerIds)).map((u) => ({
    userId: u.id, kind: 'channel.failing', severity: 'warning', title: `Channel "${channel.name}" is failing`,
    body: explain(channel.lastError), resource: { type: 'channel', id: channel.id }, dedupeKey: `channel.failing:${channel.id}`, at: now,
  }));
}

async function problemChanged(type: 'problem.opened' | 'problem.resolved', data: Record<string, unknown>, facts: NotificationFacts, now: Date): Promise<NotificationDraft[]> {
  const problemId = id(data, 'id');
  const fingerprint = text(data, 'fingerprint');
  const message = text(data, 'message') ?? 'A system problem';
  if (!problemId || !fingerprint) return [];
  const opened = type === 'problem.opened';
  const severity: NotificationSeverity = !opened ? 'info' : text(data, 'severity') === 'critical' ? 'critical' : 'warning';
  const at = date(text(data, opened ? 'opened_at' : 'resolved_at')) ?? now;
  const dedupeKey = `${type}:${fingerprint}`;
  const since = text(data, 'opened_at') ?? at.toISOString();
  const body = `${text(data, 'kind') ?? 'problem'}: ${opened ? `open since ${since}` : `open from ${since} to ${at.toISOString()}`}`;
  const draft = (userId: string, resource: NotificationDraft['resource']): NotificationDraft => ({
    userId, kind: type, severity, title: opened ? message : `Resolved: ${message}`,
    body, resource, dedupeKey, at, toldBy: [dedupeKey],
  });
  const admins = (await facts.admins()).filter((u) => u.enabled);
  const drafts = admins.map((u) => draft(u.id, { type: 'problem', id: problemId }));
  // An expiring key's owner, admin or not, hears of their own key (an admin among them once, of the problem).
  const resource = data.resource as { type?: unknown; id?: unknown } | null | undefined;
  if (text(data, 'kind') === 'api_key.expiring' && resource?.type === 'api_key' && typeof resource.id === 'string' && isUuid(resource.id)) {
    const ownerId = await facts.apiKeyOwner(resource.id);
    const [owner] = ownerId && !admins.some((a) => a.id === ownerId) ? await enabled(facts, [ownerId]) : [];
    if (owner) drafts.push(draft(owner.id, { type: 'api_key', id: resource.id }));
  }
  return drafts;
}

/** The notifications `event` makes (none for most events). */
export async function notificationsFor(event: EventLike, facts: NotificationFacts, now: Date): Promise<NotificationDraft[]> {
  switch (event.type) {
    case 'run.updated': return runEnded(event.data, facts, now);
    case 'channel.health': return channelFailing(event.data, facts, now);
    case 'problem.opened':
    case 'problem.resolved': return problemChanged(event.type, event.data, facts, now);
    default: return [];
  }
}
