/**
 * Sending an alert: through each alert channel in order, with the channel plugins and the
 * deliveries' quick retries (no second HTTP client), then, only when every alert channel's sends
 * failed, through the fallback channel with a message that says which channels failed and why.
 * Channels that send to people (email) write to the workspace's enabled admins. Every send is
 * recorded (alert_sends), for the settings' status.
 */
import type { Clock } from '../../core/clock.js';
import type { Log } from '../../core/log.js';
import type { Secrets } from '../../core/secrets.js';
import { fullSettingsOf } from '../channels/channel-settings.js';
import type { ChannelRecord } from '../channels/model.js';
import { createSendWithRetries, type RetryPolicy } from '../deliveries/send-with-retries.js';
import { sendsToPeople, type ChannelMessage, type ChannelPlugin, type OutboundHttp } from '../plugins/channel.js';
import type { AlertEvent, ProblemRecord } from './model.js';
import type { ProblemsRepo } from './ports.js';
import { humanSeconds } from './problems.js';

export interface AlertTargetResult {
  channelId: string;
  fallback: boolean;
  ok: boolean;
  error: { code: string; message: string } | null;
  elapsedMs: number;
}

export interface AlertSenderDeps {
  channels: { find(id: string): Promise<ChannelRecord | undefined> };
  plugins: { channel(id: string): ChannelPlugin | undefined };
  /** Email addresses of the enabled admins (where channels that send to people write). */
  adminEmails(): Promise<string[]>;
  problems: Pick<ProblemsRepo, 'recordSend'>;
  secrets: Secrets;
  http: OutboundHttp;
  clock: Clock;
  retry: RetryPolicy;
  publicUrl: string;
  log: Log;
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

const RESOURCE_PATHS: Record<string, string> = { channel: 'channels', report: 'reports', run: 'runs', api_key: 'settings/api-keys' };

/** The alert's message: names the problem, since when, the resource with a link, and on resolve how long it lasted. */
export function alertMessage(problem: ProblemRecord, event: AlertEvent, now: Date, publicUrl: string, failedBefore: string[] = []): ChannelMessage {
  const base = publicUrl.replace(/\/+$/, '');
  const resource = problem.resource
    ? { ...problem.resource, url: problem.resource.type === 'api_key' ? `${base}/${RESOURCE_PATHS.api_key}` : `${base}/${RESOURCE_PATHS[problem.resource.type] ?? problem.resource.type}/${problem.resource.id}` }
    : null;
  const lasted = humanSeconds(Math.round(((problem.resolvedAt ?? now).getTime() - problem.openedAt.getTime()) / 1000));
  const label = event === 'resolved' ? 'Resolved' : event === 'test' ? 'Test' : problem.severity === 'critical' ? 'CRITICAL' : 'Warning';
  const subject = `[Herald] ${label}: ${problem.message}`.slice(0, 250);
  const lines = [
    event === 'resolved' ? `Resolved after ${lasted}: ${problem.message}` : event === 'test' ? 'This is a test alert from Herald: alerts reach this channel.' : problem.message,
    '',
    `Problem: ${problem.kind} (${problem.severity})`,
    `Since: ${problem.openedAt.toISOString()}${event === 'resolved' ? `, resolved ${(problem.resolvedAt ?? now).toISOString()} (lasted ${lasted})` : ` (${lasted} ago)`}`,
    ...(event === 'repeated' ? ['Still open: this alert repeats while the problem lasts.'] : []),
    ...(resource ? [`Concerns: ${resource.type} ${resource.id}`, `Open: ${resource.url}`] : []),
    ...(failedBefore.length > 0 ? ['', 'Sent to this fallback channel because every alert channel failed:', ...failedBefore.map((f) => `- ${f}`)] : []),
    '',
    `Herald at ${base}`,
  ];
  return {
    subject, body: lines.join('\n'), table: null, attachment: null, link: null,
    alert: {
      event, kind: problem.kind, fingerprint: problem.fingerprint, severity: problem.severity, message: problem.message,
      since: problem.openedAt, resolvedAt: problem.resolvedAt, resource,
    },
    facts: {
      reportId: '00000000-0000-0000-0000-000000000000', reportTitle: 'Herald system alert', runId: problem.id,
      runStatus: event === 'resolved' ? 'success' : 'failed', trigger: 'alert', rowCount: 0, runAt: problem.openedAt,
      runUrl: resource?.url ?? base, columns: [],
    },
  };
}

export function createAlertSender(deps: AlertSenderDeps) {
  const sendWithRetries = createSendWithRetries({
    retry: deps.retry, http: deps.http, clock: deps.clock, sleep: deps.sleep ?? ((ms, signal) => deps.clock.sleep(ms, signal)),
  });

  /** One channel: every admin for channels that write to people, else the channel's own destination. */
  async function sendThrough(channelId: string, message: ChannelMessage, messageId: string): Promise<{ ok: boolean; error: { code: string; message: string } | null }> {
    const channel = await deps.channels.find(channelId);
    if (!channel) return { ok: false, error: { code: 'not_found', message: 'the channel no longer exists' } };
    const plugin = deps.plugins.channel(channel.type);
    if (!plugin) return { ok: false, error: { code: 'delivery.invalid', message: `the channel plugin ${channel.type} is not installed` } };
    const settings = fullSettingsOf(channel, deps.secrets);
    const targets = sendsToPeople(plugin) ? (await deps.adminEmails()).map((e) => plugin.testTarget(e)) : [{}];
    if (targets.length === 0) return { ok: false, error: { code: 'delivery.invalid', message: 'no enabled admin has an email address to write to' } };
    const signal = AbortSignal.timeout(deps.retry.sendTimeoutMs * deps.retry.sends + 60_000);
    let failure: { code: string; message: string } | null = null;
    let sent = 0;
    for (const [i, target] of targets.entries()) {
      const made = { sends: 0, history: [] };
      const outcome = await sendWithRetries(plugin, settings, target, message, targets.length > 1 ? `${messageId}.${i}` : messageId, signal, made);
      if (outcome.end.status === 'sent') sent += 1;
      else failure = outcome.end.error;
    }
    return sent > 0 ? { ok: true, error: null } : { ok: false, error: failure };
  }

  return {
    /**
     * Sends one alert: the alert channels, then the fallback only when all of them failed (or
     * none is set). Answers per target; never throws for a failed send.
     */
    async send(problem: ProblemRecord, event: AlertEvent, to: { channelIds: string[]; fallbackChannelId: string | null }): Promise<AlertTargetResult[]> {
      const results: AlertTargetResult[] = [];
      const messageId = `${problem.id}.${event}.${deps.clock.now().getTime()}`;
      const attempt = async (channelId: string, fallback: boolean, message: ChannelMessage) => {
        const started = performance.now();
        let r: { ok: boolean; error: { code: string; message: string } | null };
        try {
          r = await sendThrough(channelId, message, messageId);
        } catch (err) {
          r = { ok: false, error: { code: 'delivery.peer_error', message: String((err as Error)?.message ?? err).slice(0, 300) } };
        }
        const result = { channelId, fallback, ...r, elapsedMs: Math.round(performance.now() - started) };
        results.push(result);
        await deps.problems.recordSend({
          problemId: event === 'test' ? null : problem.id, event, channelId, fallback, status: r.ok ? 'sent' : 'failed',
          error: r.error ? `${r.error.code}: ${r.error.message}` : null, createdAt: deps.clock.now(),
        }).catch((err: unknown) => deps.log.error('alert send not recorded', { err }));
        if (!r.ok) deps.log.warn('alert not sent through a channel', { channel_id: channelId, fallback, problem: problem.fingerprint, code: r.error?.code });
        return result;
      };
      const now = deps.clock.now();
      const message = alertMessage(problem, event, now, deps.publicUrl);
      for (const id of to.channelIds) await attempt(id, false, message);
      if (to.fallbackChannelId && results.every((r) => !r.ok)) {
        const names = await Promise.all(results.map(async (r) => {
          const c = await deps.channels.find(r.channelId).catch(() => undefined);
          return `${c?.name ?? r.channelId}: ${r.error ? `${r.error.code}: ${r.error.message}` : 'failed'}`;
        }));
        await attempt(to.fallbackChannelId, true, alertMessage(problem, event, now, deps.publicUrl, names.length > 0 ? names : ['no alert channel is set']));
      }
      return results;
    },
  };
}

export type AlertSender = ReturnType<typeof createAlertSender>;
