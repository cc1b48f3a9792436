/**
 * The composition root's bridge from infra's guarded HTTP client (src/infra/outbound/http.ts) to
 * the domain's OutboundHttp port (src/domain/plugins/channel.ts): the same requests, with
 * infra's OutboundError turned into the domain's ChannelSendError.
 */
import { ChannelSendError, type OutboundHttp } from './domain/plugins/channel.js';
import { createOutboundHttp, OutboundError } from './infra/outbound/http.js';

export function createChannelHttp(options: { allow: readonly string[]; timeoutMs?: number }): OutboundHttp & { close(): void } {
  const client = createOutboundHttp(options);
  return {
    async request(req, signal) {
      try {
        return await client.request(req, signal);
      } catch (err) {
        if (err instanceof OutboundError) throw new ChannelSendError(err.code, err.message, { transient: err.options.transient });
        throw err;
      }
    },
    agents: (url) => client.agents(url),
    allowsHost: (url) => client.allowsHost(url),
    close: () => client.close(),
  };
}
