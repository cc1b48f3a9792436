/**
 * The OIDC service's transport port: the fetch openid-client calls the identity provider with,
 * made of the guarded outbound HTTP client (the channels' one, which obeys SVC_OUTBOUND_ALLOW).
 */
import type { OutboundHttp } from '../../domain/plugins/channel.js';
import type { OidcTransport } from '../../domain/sign-in/oidc-service.js';

const NO_BODY = new Set([101, 204, 205, 304]);

export function createOidcTransport(http: OutboundHttp): OidcTransport {
  return {
    async fetch(url, init) {
      const method = init.method.toUpperCase();
      if (method !== 'GET' && method !== 'POST') throw new TypeError(`${method} is not used with an identity provider`);
      const body = typeof init.body === 'string' ? init.body : init.body instanceof Uint8Array ? Buffer.from(init.body) : undefined;
      const answer = await http.request(
        { method, url, headers: init.headers, ...(body !== undefined ? { body } : {}), timeoutMs: 10_000 },
        init.signal ?? AbortSignal.timeout(15_000),
      );
      return new Response(NO_BODY.has(answer.status) ? null : answer.body, { status: answer.status, headers: answer.headers });
    },
    allowsHttp: (url) => http.allowsHost(url),
  };
}
