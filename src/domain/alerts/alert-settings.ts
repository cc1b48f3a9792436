/**
 * The alert settings (GET/PUT /settings/alerts): the alert channels in order, the fallback
 * channel, how often an open problem is alerted again, which kinds alert, the thresholds, and the
 * heartbeat. They live in the workspace settings under `alerts`; the heartbeat's URLs, which
 * often carry a token, are sealed in its secrets. A change is a security event.
 */
import type { Clock } from '../../core/clock.js';
import { validationFailed, type FieldProblem } from '../../core/errors.js';
import type { Secrets } from '../../core/secrets.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import type { SettingsRecord } from '../identity/model.js';
import type { SettingsRepo } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import {
  DEFAULT_REPEAT_MINUTES, DEFAULT_THRESHOLDS, PROBLEM_KINDS,
  type AlertSettings, type HeartbeatMethod, type HeartbeatTargets, type ProblemKind, type Thresholds,
} from './model.js';

export const ALERTS_KEY = 'alerts';
const secretsContext = `workspace_settings.secrets:${ALERTS_KEY}`;

/** A secret input: a string replaces, null removes, undefined (or {configured: true}) keeps. */
export type SecretChange = string | null | undefined;

export interface AlertSettingsInput {
  version: number;
  channelIds: string[];
  fallbackChannelId: string | null;
  repeatMinutes?: number | undefined;
  kinds?: ProblemKind[] | undefined;
  thresholds?: Partial<Thresholds> | undefined;
  /** null turns the heartbeat off; undefined keeps it as it is. */
  heartbeat?: {
    url: SecretChange; method?: HeartbeatMethod | undefined; intervalSeconds: number;
    graceSeconds?: number | null | undefined; failUrl: SecretChange;
  } | null | undefined;
}

export function readAlertSettings(row: SettingsRecord | undefined): AlertSettings {
  const v = row?.value ?? {};
  const t = (v.thresholds ?? {}) as Record<string, unknown>;
  const num = (x: unknown, d: number) => (typeof x === 'number' ? x : d);
  const hb = v.heartbeat as Record<string, unknown> | null | undefined;
  return {
    channelIds: Array.isArray(v.channel_ids) ? v.channel_ids as string[] : [],
    fallbackChannelId: typeof v.fallback_channel_id === 'string' ? v.fallback_channel_id : null,
    repeatMinutes: num(v.repeat_minutes, DEFAULT_REPEAT_MINUTES),
    kinds: Array.isArray(v.kinds) ? v.kinds as ProblemKind[] : [...PROBLEM_KINDS],
    thresholds: {
      schedulerGraceSeconds: num(t.scheduler_grace_seconds, DEFAULT_THRESHOLDS.schedulerGraceSeconds),
      queueBacklogSeconds: num(t.queue_backlog_seconds, DEFAULT_THRESHOLDS.queueBacklogSeconds),
      failureStreak: num(t.failure_streak, DEFAULT_THRESHOLDS.failureStreak),
      diskFreePercent: num(t.disk_free_percent, DEFAULT_THRESHOLDS.diskFreePercent),
    },
    heartbeat: hb ? {
      hasUrl: hb.has_url === true, method: (hb.method as HeartbeatMethod | undefined) ?? 'GET',
      intervalSeconds: num(hb.interval_seconds, 60), graceSeconds: typeof hb.grace_seconds === 'number' ? hb.grace_seconds : null,
      hasFailUrl: hb.has_fail_url === true,
    } : null,
    version: row?.version ?? 1,
    updatedAt: row?.updatedAt ?? null,
  };
}

/** The heartbeat's URLs, opened (only the heartbeat and its test call them). */
export function heartbeatTargetsOf(row: SettingsRecord | undefined, secrets: Secrets): HeartbeatTargets {
  if (!row?.secretsSealed) return { url: null, failUrl: null };
  const open = JSON.parse(secrets.open(row.secretsSealed, secretsContext)) as { url?: string; fail_url?: string };
  return { url: open.url ?? null, failUrl: open.fail_url ?? null };
}

/** Where the heartbeat may call: https, or http to a host SVC_OUTBOUND_ALLOW names. */
function urlProblem(url: string, allowsHost: (url: string) => boolean): string | null {
  let u: URL;
  try { u = new URL(url); } catch { return 'must be an absolute http(s) URL'; }
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:') return allowsHost(url) ? null : 'must be https (plain http only to a host SVC_OUTBOUND_ALLOW names)';
  return 'must be an absolute http(s) URL';
}

export interface AlertChannelCheck {
  /** The ids among `ids` that are channels, locked against deletion until the unit of work ends. */
  existing(ids: string[]): Promise<Set<string>>;
}

export function createAlertSettingsService(deps: {
  settings: SettingsRepo; uow: UnitOfWork; channels: AlertChannelCheck; secrets: Secrets; clock: Clock;
  allowsHost(url: string): boolean;
}) {
  const { clock } = deps;
  return {
    async get(): Promise<AlertSettings> {
      return readAlertSettings(await deps.settings.get(ALERTS_KEY));
    },

    /** The settings and the heartbeat's opened URLs, for the heartbeat and the alert sends. */
    async withTargets(): Promise<{ settings: AlertSettings; targets: HeartbeatTargets }> {
      const row = await deps.settings.get(ALERTS_KEY);
      return { settings: readAlertSettings(row), targets: heartbeatTargetsOf(row, deps.secrets) };
    },

    async replace(input: AlertSettingsInput, actor: Actor): Promise<AlertSettings> {
      return deps.uow.run(async (tx) => {
        const row = await tx.workspaceSettings.get(ALERTS_KEY);
        const current = readAlertSettings(row);
        const stored = heartbeatTargetsOf(row, deps.secrets);
        const problems: FieldProblem[] = [];
        const wanted = [...input.channelIds, ...(input.fallbackChannelId ? [input.fallbackChannelId] : [])];
        const existing = await deps.channels.existing(wanted);
        input.channelIds.forEach((id, i) => {
          if (!existing.has(id)) problems.push({ field: `channel_ids.${i}`, code: 'validation.invalid', message: 'no channel has this id' });
        });
        if (input.fallbackChannelId) {
          if (!existing.has(input.fallbackChannelId)) problems.push({ field: 'fallback_channel_id', code: 'validation.invalid', message: 'no channel has this id' });
          else if (input.channelIds.includes(input.fallbackChannelId)) {
            problems.push({ field: 'fallback_channel_id', code: 'validation.invalid', message: 'is one of the alert channels; the fallback must be another channel' });
          }
        }
        let heartbeat: Record<string, unknown> | null;
        let targets = { url: stored.url, failUrl: stored.failUrl };
        if (input.heartbeat === null) {
          heartbeat = null;
          targets = { url: null, failUrl: null };
        } else if (input.heartbeat === undefined) {
          heartbeat = row?.value.heartbeat as Record<string, unknown> | null ?? null;
        } else {
          const h = input.heartbeat;
          const url = h.url === undefined ? stored.url : h.url;
          const failUrl = h.failUrl === undefined ? stored.failUrl : h.failUrl;
          if (!url) problems.push({ field: 'heartbeat.url', code: 'validation.required', message: 'the heartbeat needs a URL to call (or send heartbeat: null to turn it off)' });
          for (const [field, value] of [['heartbeat.url', url], ['heartbeat.fail_url', failUrl]] as const) {
            const problem = value ? urlProblem(value, deps.allowsHost) : null;
            if (problem) problems.push({ field, code: 'validation.format', message: problem });
          }
          targets = { url, failUrl };
          heartbeat = {
            has_url: !!url, method: h.method ?? 'GET', interval_seconds: h.intervalSeconds,
            grace_seconds: h.graceSeconds ?? null, has_fail_url: !!failUrl,
          };
        }
        if (problems.length > 0) throw validationFailed(problems);
        const t = { ...current.thresholds, ...Object.fromEntries(Object.entries(input.thresholds ?? {}).filter(([, v]) => v !== undefined)) } as Thresholds;
        const value = {
          channel_ids: input.channelIds,
          fallback_channel_id: input.fallbackChannelId,
          repeat_minutes: input.repeatMinutes ?? DEFAULT_REPEAT_MINUTES,
          kinds: input.kinds ?? [...PROBLEM_KINDS],
          thresholds: {
            scheduler_grace_seconds: t.schedulerGraceSeconds, queue_backlog_seconds: t.queueBacklogSeconds,
            failure_streak: t.failureStreak, disk_free_percent: t.diskFreePercent,
          },
          heartbeat,
        };
        const secretsObject = { ...(targets.url ? { url: targets.url } : {}), ...(targets.failUrl ? { fail_url: targets.failUrl } : {}) };
        const sealed = Object.keys(secretsObject).length > 0 ? deps.secrets.seal(JSON.stringify(secretsObject), secretsContext) : null;
        const saved = await tx.workspaceSettings.put(ALERTS_KEY, input.version, value, sealed, clock.now());
        await recordSecurityEvent(tx.securityEvents, {
          type: 'settings.alerts_updated', actor,
          details: {
            channels: input.channelIds.length, fallback: input.fallbackChannelId !== null, repeat_minutes: value.repeat_minutes,
            heartbeat: heartbeat !== null, heartbeat_url_changed: input.heartbeat === null || (input.heartbeat?.url !== undefined),
            fail_url_changed: input.heartbeat === null || (input.heartbeat?.failUrl !== undefined),
          },
        }, clock);
        return readAlertSettings(saved);
      });
    },
  };
}

export type AlertSettingsService = ReturnType<typeof createAlertSettingsService>;
