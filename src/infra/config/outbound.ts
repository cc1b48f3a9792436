/** Requests Herald makes to other hosts (webhooks, chats, buckets, OIDC, heartbeat, AI). */
import { commaList, isAddressOrCidr, setting } from './schema.js';

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
