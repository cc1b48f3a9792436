import type { Handler } from '../types.js';
import { actorOf } from '../identity-views.js';
import { alertSettingsView } from '../alert-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'alertSettings' | 'operations'>;

/** {configured: true} or an omitted field keeps a stored secret; a string replaces it; null removes it. */
const secretChange = (v: unknown): string | null | undefined => (v === undefined || (typeof v === 'object' && v !== null) ? undefined : v as string | null);

export const replaceAlertSettings = (d: Deps): Handler<'replaceAlertSettings'> => async (req) => {
  const b = req.body;
  const h = b.heartbeat;
  const t = b.thresholds;
  const settings = await d.alertSettings.replace({
    version: b.version, channelIds: b.channel_ids, fallbackChannelId: b.fallback_channel_id ?? null,
    repeatMinutes: b.repeat_minutes, kinds: b.kinds,
    thresholds: t ? {
      schedulerGraceSeconds: t.scheduler_grace_seconds, queueBacklogSeconds: t.queue_backlog_seconds,
      failureStreak: t.failure_streak, diskFreePercent: t.disk_free_percent,
    } : undefined,
    heartbeat: h === null ? null : h === undefined ? undefined : {
      url: secretChange(h.url), method: h.method, intervalSeconds: h.interval_seconds, graceSeconds: h.grace_seconds, failUrl: secretChange(h.fail_url),
    },
  }, actorOf(req.ctx));
  return { status: 200, body: alertSettingsView(settings, await d.operations.status()) };
};
