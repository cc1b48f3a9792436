/** Requests Herald makes to other hosts (webhooks, chats, buckets, OIDC, heartbeat, AI). */
import { commaList, integer, isAddressOrCidr, setting } from './schema.js';

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

export const outboundSettings = {
  outboundAllow: setting({
    env: 'SVC_OUTBOUND_ALLOW',
    description: 'comma list of CIDRs and host names outbound requests may reach although private or loopback',
    default: 'empty',
    parse(v, ctx) {
      const items = commaList(v);
      for (const item of items) {
        if (!isAddressOrCidr(item) && !HOST_NAME.test(item)) ctx.fail(`"${item}" is neither a CIDR nor a host name`);
      }
      return items;
    },
  }),
};

/** A duration as written in the retry schedule: 90s, 5m, 2h (a bare number is seconds). */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

/** How deliveries are sent: their queue, their limits per channel, and how they retry. */
export const deliverySettings = {
  deliverySends: integer('SVC_DELIVERY_SENDS', { fallback: 4, min: 1, max: 10 },
    'sends per delivery attempt, the first included: transient failures (timeouts, connection errors, 5xx, 429) are retried up to this'),
  deliveryBackoffMs: integer('SVC_DELIVERY_BACKOFF_MS', { fallback: 2000, min: 10, max: 600_000 },
    'first retry delay of a delivery in ms; each later one doubles, with equal jitter: at least half of it (a Retry-After is honoured up to 60 s)'),
  deliveryConcurrency: integer('SVC_DELIVERY_CONCURRENCY', { fallback: 16, min: 1, max: 500 },
    'deliveries one worker process sends at once, from the deliveries queue (apart from the runs of SVC_WORKER_CONCURRENCY)'),
  deliveryChannelLimit: integer('SVC_DELIVERY_CHANNEL_LIMIT', { fallback: 4, min: 1, max: 100 },
    'sends to one channel in flight at once across every worker; more wait their turn on the queue, so a slow receiver holds up no other channel'),
  deliveryBreakerFailures: integer('SVC_DELIVERY_BREAKER_FAILURES', { fallback: 5, min: 1, max: 1000 },
    'failed sends in a row to one channel that open its circuit: its deliveries then fail fast with delivery.channel_failing and are retried on the schedule'),
  deliveryBreakerSeconds: integer('SVC_DELIVERY_BREAKER_SECONDS', { fallback: 30, min: 1, max: 3600 },
    'how long an open circuit stays open before one send tries the channel again (a success closes it)'),
  deliveryRetrySchedule: setting<number[]>({
    env: 'SVC_DELIVERY_RETRY_SCHEDULE',
    description: 'waits between the automatic retries of a delivery whose quick retries failed transiently (comma list of 1s to 24h; a longer Retry-After is honoured); off: no automatic retries',
    default: '5s,5m,30m,2h,5h,10h',
    parse(v, ctx) {
      if (v?.trim() === 'off') return [];
      const items = commaList(v ?? '5s,5m,30m,2h,5h,10h');
      if (items.length > 20) ctx.fail('at most 20 waits');
      return items.map((item) => {
        const ms = parseDuration(item);
        if (ms === undefined || ms < 1000 || ms > 24 * 3_600_000) return ctx.fail(`"${item}" is not a wait from 1s to 24h (write 90s, 5m or 2h)`);
        return ms;
      });
    },
  }),
  deliveryRetryMaxHours: integer('SVC_DELIVERY_RETRY_MAX_HOURS', { fallback: 24, min: 1, max: 168 },
    'no automatic retry is planned for a delivery attempt older than this'),
};
