/**
 * What the AI provider plugins (src/plugins/openai, anthropic) share: a JSON POST through the
 * outbound guard within the settings' time limit (one deadline for the whole complete(), each
 * request gets the time left), and the provider's failures as AiError codes:
 *
 * | what happened                                   | code                                          |
 * |-------------------------------------------------|-----------------------------------------------|
 * | 401, 403                                        | ai.auth_failed                                |
 * | 404                                             | ai.model_not_found (or no such API at the base URL: the message says what the server said) |
 * | 408                                             | ai.timeout                                    |
 * | 429                                             | ai.rate_limited, retryAfterMs from retry-after-ms or Retry-After (seconds or an HTTP date) |
 * | 5xx, 529 (Anthropic: overloaded)                | ai.unavailable (retryAfterMs when said)       |
 * | any other status that is not 2xx (400, 402, 413, 422 …) | ai.unavailable: the provider refused the request as these settings make it (a model without structured outputs, max_tokens above the model's limit, no credit left); the message carries the provider's words |
 * | 2xx whose body is not JSON                      | ai.bad_output                                 |
 * | the guard refuses the address                   | outbound.refused                              |
 * | no answer within the time limit                 | ai.timeout                                    |
 * | connection refused, reset, DNS failure          | ai.unavailable                                |
 *
 * Messages name the provider's origin (never the URL's path) and at most 300 characters of the
 * provider's own error message, with the API key and anything shaped like a key blotted out;
 * never the prompt or the answer. An abort of ctx.signal rejects with the signal's reason as is.
 */
import { AiError, type AiContext, type AiProviderSettings } from '../../domain/plugins/ai.js';
import { ChannelSendError, type OutboundResponse } from '../../domain/plugins/channel.js';
import { retryAfterMs } from './http-answer.js';

/** How much of an answer is read: a long draft at 32,000 tokens is well below. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
const MAX_SAID = 300;

import { originOf } from '../../core/urls.js';

export { originOf };

/** A base URL with a path appended to its path (a query string, as Azure's older URLs have, stays). */
export function endpoint(base: string, path: string): string {
  try {
    const u = new URL(base);
    u.pathname = `${u.pathname.replace(/\/+$/, '')}${path}`;
    return u.href;
  } catch {
    return base;
  }
}

/** The text with the key, and anything shaped like a provider's key (sk-…, masked or not), blotted out. */
export function scrub(text: string, apiKey: string | null): string {
  let out = text;
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
  return out.replace(/\b(?:sk|rk|pk|key)-[A-Za-z0-9_*.-]{6,}/gi, '[redacted]');
}

/** The provider's own words about a failure: error.message of its JSON body ({error: {message}} or {error: "…"}), else the body. */
export function providerSaid(res: OutboundResponse, apiKey: string | null): string {
  let said = res.body;
  try {
    const parsed = JSON.parse(res.body) as { error?: unknown; message?: unknown };
    const e = parsed.error;
    if (typeof e === 'string') said = e;
    else if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') said = (e as { message: string }).message;
    else if (typeof parsed.message === 'string') said = parsed.message;
  } catch { /* not JSON: the text as it came */ }
  const flat = scrub(said.replace(/\s+/g, ' ').trim(), apiKey);
  return flat.length > MAX_SAID ? `${flat.slice(0, MAX_SAID - 1)}…` : flat;
}

/** One deadline for a complete(): the time left for each request, at least 1 ms. */
export function timeLeft(settings: Pick<AiProviderSettings, 'timeoutMs'>): () => number {
  const end = Date.now() + settings.timeoutMs;
  return () => Math.max(1, end - Date.now());
}

export interface ProviderPost {
  /** How messages name the provider, e.g. "Anthropic (https://api.anthropic.com)". */
  peer: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** POSTs the JSON body; answers whatever status came back; throws AiError when no answer came. */
export async function post(call: ProviderPost, settings: AiProviderSettings, ctx: AiContext, left: () => number): Promise<OutboundResponse> {
  try {
    return await ctx.http.request({
      method: 'POST', url: call.url, body: JSON.stringify(call.body), timeoutMs: left(), maxBodyBytes: MAX_ANSWER_BYTES,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...call.headers },
    }, ctx.signal);
  } catch (err) {
    if (!(err instanceof ChannelSendError)) throw err;
    const message = scrub(err.message, settings.apiKey);
    if (err.code === 'outbound.refused') throw new AiError('outbound.refused', message);
    if (err.code === 'delivery.timeout') {
      throw new AiError('ai.timeout', `${call.peer} gave no complete answer within the time limit of ${Math.round(settings.timeoutMs / 100) / 10} s`);
    }
    throw new AiError('ai.unavailable', message);
  }
}

/** The AiError for an answer that is not 2xx. */
export function failure(res: OutboundResponse, call: Pick<ProviderPost, 'peer'>, settings: AiProviderSettings): AiError {
  const said = providerSaid(res, settings.apiKey);
  const tail = said ? `: ${said}` : '';
  const status = res.status;
  // OpenAI also sends retry-after-ms; Anthropic and most servers Retry-After (seconds or a date).
  const retry = () => {
    const ms = res.headers['retry-after-ms']?.trim();
    return ms && /^\d+(\.\d+)?$/.test(ms) ? Math.round(Number(ms)) : retryAfterMs(res.headers['retry-after'], new Date());
  };
  if (status === 401 || status === 403) return new AiError('ai.auth_failed', `${call.peer} refused the credentials (HTTP ${status})${tail}`);
  if (status === 404) {
    return new AiError('ai.model_not_found', `${call.peer} answered HTTP 404 for the model "${settings.model}" (a model it does not serve, or no such API at the base URL)${tail}`);
  }
  if (status === 408) return new AiError('ai.timeout', `${call.peer} timed out the request (HTTP 408)${tail}`);
  if (status === 429) return new AiError('ai.rate_limited', `${call.peer} asks to slow down (HTTP 429)${tail}`, retry());
  if (status >= 500) return new AiError('ai.unavailable', `${call.peer} failed (HTTP ${status})${tail}`, retry());
  return new AiError('ai.unavailable', `${call.peer} refused the request (HTTP ${status})${tail}`);
}

/** The JSON body of a 2xx answer; ai.bad_output when it is not JSON. */
export function answerBody(res: OutboundResponse, call: Pick<ProviderPost, 'peer'>): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(res.body);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch { /* below */ }
  throw new AiError('ai.bad_output', `${call.peer} answered HTTP ${res.status} with a body that is not a JSON object (${res.body.length} characters)`);
}

/** A count of tokens as the provider reported it, or null. */
export function tokens(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}
