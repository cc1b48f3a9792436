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

/** How deliveries retry a transient failure inside one attempt. */
export const deliverySettings = {
  deliverySends: integer('SVC_DELIVERY_SENDS', { fallback: 4, min: 1, max: 10 },
    'sends per delivery attempt, the first included: transient failures (timeouts, connection errors, 5xx, 429) are retried up to this'),
  deliveryBackoffMs: integer('SVC_DELIVERY_BACKOFF_MS', { fallback: 2000, min: 10, max: 600_000 },
    'first retry delay of a delivery in ms; each later one doubles, with equal jitter: at least half of it (a Retry-After is honoured up to 60 s)'),
};
