/**
 * AI providers on loopback, speaking their real wire formats, for the AI plugins' tests and the
 * assistant's: `openAiPeer()` is an OpenAI Chat Completions server (POST /v1/chat/completions),
 * `anthropicPeer()` the Anthropic Messages API (POST /v1/messages). Each records every request
 * and answers from a script.
 *
 *   const ai = await openAiPeer();                // or anthropicPeer(); { apiKey } to check the key
 *   settings.baseUrl = ai.baseUrl;                // openai: http://127.0.0.1:<port>/v1; anthropic: http://127.0.0.1:<port>
 *   ai.script.push(ai.answerJson({ sql: 'select 1' }));  // next answer: that object as the structured answer
 *   ai.script.push(ai.error(429, 'Slow down', { 'retry-after': '7' }));  // the provider's error envelope
 *   ai.script.push({ status: 200, body: 'not json' });   // or any raw answer (body: a string, or an object sent as JSON)
 *   ai.script.push(ai.hang());                    // never answers (timeouts; close() ends it)
 *   ai.fallback = ai.answerJson({ ... });         // when the script is used up (default: HTTP 500 "no scripted answer", in the provider's error format)
 *   ai.requests[0].body.messages;                 // what was sent: method, path, headers, JSON-parsed body
 *   ai.reset();                                   // forget requests and script (beforeEach)
 *   await ai.close();
 *
 * An answer may also be a function of the request (answerJson is one: it echoes the request's
 * model, and for Anthropic the forced tool's name). The OpenAI peer answers 404 on any other path;
 * the Anthropic peer answers 400 without the anthropic-version header, as the real ones do. With
 * { apiKey }, a request without that key (Bearer / x-api-key) gets the provider's real 401.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AiPeerRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The JSON body, parsed (null when it was not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  raw: string;
}

export interface RawAnswer { status: number; headers?: Record<string, string>; body?: string | object }
export type PeerAnswer = RawAnswer | { hang: true } | ((req: AiPeerRequest) => RawAnswer | { hang: true });

export interface AiPeer {
  port: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** What AiProviderSettings.baseUrl takes to reach this peer. */
  baseUrl: string;
  requests: AiPeerRequest[];
  /** Answers in turn; when used up, `fallback` answers. */
  script: PeerAnswer[];
  fallback: PeerAnswer;
  /** Never answers (the connection stays open until the client gives up or close()). */
  hang(): PeerAnswer;
  /** Resolves when `n` requests have arrived in all. */
  waitForRequests(n: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

export interface OpenAiPeer extends AiPeer {
  /** A chat.completion whose choices[0].message.content is JSON.stringify(value). */
  answerJson(value: unknown, options?: OpenAiAnswerOptions): PeerAnswer;
  /** A chat.completion whose content is this text as is (a fenced block, prose, half a JSON). */
  answerText(content: string, options?: OpenAiAnswerOptions): PeerAnswer;
  /** A chat.completion with message.refusal set and content null. */
  answerRefusal(refusal: string): PeerAnswer;
  /** OpenAI's error envelope {error: {message, type, param, code}}. */
  error(status: number, message: string, headers?: Record<string, string>, extra?: { type?: string; param?: string | null; code?: string | null }): PeerAnswer;
}

export interface OpenAiAnswerOptions {
  /** Default: the request's model. */
  model?: string;
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
}

export interface AnthropicPeer extends AiPeer {
  /** A message whose content is one tool_use block with this input (named after the request's tool_choice). */
  answerJson(input: unknown, options?: AnthropicAnswerOptions): PeerAnswer;
  /** A message with a text block only (no tool_use), stop_reason end_turn unless said. */
  answerText(text: string, options?: AnthropicAnswerOptions): PeerAnswer;
  /** Anthropic's error envelope {type: error, error: {type, message}}. */
  error(status: number, message: string, headers?: Record<string, string>, type?: string): PeerAnswer;
}

export interface AnthropicAnswerOptions {
  /** Default: the request's model. */
  model?: string;
  stopReason?: string;
  /** Default: the request's tool_choice.name. */
  toolName?: string;
  usage?: { input_tokens: number; output_tokens: number };
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

async function startPeer(route: (req: AiPeerRequest) => RawAnswer | null, basePath: string): Promise<AiPeer> {
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const peer = {
    requests: [] as AiPeerRequest[],
    script: [] as PeerAnswer[],
    fallback: { status: 500, body: { error: { message: 'The test peer has no scripted answer', type: 'server_error' } } } as PeerAnswer,
    hang: (): PeerAnswer => ({ hang: true }),
    waitForRequests: (n: number) => new Promise<void>((resolve) => {
      if (peer.requests.length >= n) resolve();
      else waiters.push({ n, resolve });
    }),
    reset() { peer.requests.length = 0; peer.script.length = 0; },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try { body = JSON.parse(raw); } catch { /* not JSON */ }
      const recorded: AiPeerRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, raw };
      peer.requests.push(recorded);
      for (const w of waiters.filter((x) => peer.requests.length >= x.n)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
      let answer: RawAnswer | { hang: true } | null = route(recorded);
      if (!answer) {
        const scripted = peer.script.shift() ?? peer.fallback;
        answer = typeof scripted === 'function' ? scripted(recorded) : scripted;
      }
      if ('hang' in answer) return;
      const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      const type = typeof answer.body === 'object' ? { 'content-type': 'application/json' } : {};
      res.writeHead(answer.status, { ...type, ...(answer.headers ?? {}) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return Object.assign(peer, {
    port, origin, baseUrl: `${origin}${basePath}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  });
}

const completion = (req: AiPeerRequest, message: Record<string, unknown>, o: OpenAiAnswerOptions = {}): RawAnswer => {
  const usage = o.usage ?? { prompt_tokens: 120, completion_tokens: 30 };
  return {
    status: 200,
    body: {
      id: nextId('chatcmpl-'), object: 'chat.completion', created: Math.floor(Date.now() / 1000),
      model: o.model ?? req.body?.model ?? 'gpt-test', system_fingerprint: 'fp_test',
      choices: [{ index: 0, message: { role: 'assistant', refusal: null, annotations: [], ...message }, logprobs: null, finish_reason: o.finishReason ?? 'stop' }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
};

export async function openAiPeer(options: { apiKey?: string } = {}): Promise<OpenAiPeer> {
  const error: OpenAiPeer['error'] = (status, message, headers, extra = {}) => ({
    status, headers, body: { error: { message, type: extra.type ?? 'invalid_request_error', param: extra.param ?? null, code: extra.code ?? null } },
  });
  const peer = await startPeer((req) => {
    if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return { status: 404, body: { error: { message: `Invalid URL (${req.method} ${req.path})`, type: 'invalid_request_error', param: null, code: null } } };
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      const sent = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      const message = sent ? `Incorrect API key provided: ${sent.slice(0, 3)}********${sent.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.` : "You didn't provide an API key.";
      return { status: 401, body: { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } };
    }
    return null;
  }, '/v1');
  return Object.assign(peer, {
    answerJson: (value: unknown, o?: OpenAiAnswerOptions): PeerAnswer => (req) => completion(req, { content: JSON.stringify(value) }, o),
    answerText: (content: string, o?: OpenAiAnswerOptions): PeerAnswer => (req) => completion(req, { content }, o),
    answerRefusal: (refusal: string): PeerAnswer => (req) => completion(req, { content: null, refusal }),
    error,
  });
}

const message = (req: AiPeerRequest, content: unknown[], stopReason: string, o: AnthropicAnswerOptions = {}): RawAnswer => ({
  status: 200,
  body: {
    id: nextId('msg_'), type: 'message', role: 'assistant', model: o.model ?? req.body?.model ?? 'claude-test',
    content, stop_reason: o.stopReason ?? stopReason, stop_sequence: null,
    usage: { input_tokens: 150, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...(o.usage ?? {}) },
  },
});

export async function anthropicPeer(options: { apiKey?: string } = {}): Promise<AnthropicPeer> {
  const error: AnthropicPeer['error'] = (status, text, headers, type) => ({
    status, headers: { 'request-id': nextId('req_'), ...(headers ?? {}) },
    body: { type: 'error', error: { type: type ?? (status === 529 ? 'overloaded_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error'), message: text } },
  });
  const peer = await startPeer((req) => {
    if (req.method !== 'POST' || req.path !== '/v1/messages') return { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'Not Found' } } };
    if (!req.headers['anthropic-version']) return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } } };
    if (options.apiKey && req.headers['x-api-key'] !== options.apiKey) {
      return { status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } };
    }
    return null;
  }, '');
  peer.fallback = error(500, 'The test peer has no scripted answer', {}, 'api_error');
  return Object.assign(peer, {
    answerJson: (input: unknown, o?: AnthropicAnswerOptions): PeerAnswer => (req) => message(req, [
      { type: 'tool_use', id: nextId('toolu_'), name: o?.toolName ?? req.body?.tool_choice?.name ?? 'answer', input },
    ], 'tool_use', o),
    answerText: (text: string, o?: AnthropicAnswerOptions): PeerAnswer => (req) => message(req, [{ type: 'text', text }], 'end_turn', o),
    error,
  });
}
