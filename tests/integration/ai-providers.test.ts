/**
 * The AI provider plugins (openai: Chat Completions; anthropic: Messages API) against real HTTP
 * peers on loopback speaking the providers' wire formats, through the guarded outbound client:
 * what each sends (path, headers, the whole body), the answer parsed, every failure mapped to its
 * AiError code, the guard's refusal, and no API key or prompt in any error message.
 */
import { createOutboundHttp } from '../../src/infra/outbound/http.js';
import { AiError, type AiProviderSettings, type AiRequest } from '../../src/domain/plugins/ai.js';
import { openAiPlugin, firstShape, jsonText } from '../../src/plugins/openai/index.js';
import { anthropicPlugin } from '../../src/plugins/anthropic/index.js';
import { builtInPlugins, createPluginRegistry } from '../../src/plugins/registry.js';
import { anthropicPeer, openAiPeer, type AnthropicPeer, type OpenAiPeer } from '../support/ai-peers.js';
import { closedPort } from '../support/fake-servers.js';

const KEY = 'sk-test-Secr3tKey0123456789abcdef';
const PROMPT = 'Total sales per region for last month, biggest first';
const http = createOutboundHttp({ allow: ['127.0.0.1'] });
const schema = {
  type: 'object', additionalProperties: false, required: ['sql', 'explanation'],
  properties: { sql: { type: 'string' }, explanation: { type: 'string' } },
};
const request: AiRequest = {
  system: 'You write one read-only SQL query for the schema in the first message.',
  messages: [
    { role: 'user', content: `Schema:\n~~~\nsales(region text, total numeric)\n~~~\n${PROMPT}` },
    { role: 'assistant', content: '{"sql":"select 1","explanation":"a first try"}' },
    { role: 'user', content: 'Group it by region, please.' },
  ],
  output: { name: 'sql_draft', schema },
};
const draft = { sql: 'select region, sum(total) from sales group by region order by 2 desc', explanation: 'Sums per region.' };
const ctx = (signal = new AbortController().signal) => ({ http, signal });

let openai: OpenAiPeer;
let anthropic: AnthropicPeer;
beforeAll(async () => {
  openai = await openAiPeer();
  anthropic = await anthropicPeer();
});
afterAll(async () => {
  http.close();
  await openai.close();
  await anthropic.close();
});
beforeEach(() => {
  openai.reset();
  anthropic.reset();
});

/** The AiError a call ends with; its message never holds the key or the prompt. */
async function failure(promise: Promise<unknown>): Promise<AiError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(AiError);
  const e = err as AiError;
  expect(e.message).not.toContain(KEY);
  expect(e.message).not.toContain(PROMPT);
  expect(e.message).not.toContain('Secr3t');
  return e;
}

describe('openai', () => {
  const settings = (over: Partial<AiProviderSettings> = {}): AiProviderSettings =>
    ({ baseUrl: openai.baseUrl, model: 'gpt-test', apiKey: KEY, timeoutMs: 5_000, maxTokens: 1500, ...over });

  it('posts the Chat Completions body with the system text, the messages and the strict JSON schema, and parses the answer', async () => {
    openai.script.push(openai.answerJson(draft, { model: 'gpt-test-2025-01-01', usage: { prompt_tokens: 321, completion_tokens: 54 } }));
    const answer = await openAiPlugin.complete(settings(), request, ctx());
    expect(answer).toEqual({ json: draft, model: 'gpt-test-2025-01-01', usage: { inputTokens: 321, outputTokens: 54 } });
    expect(openai.requests).toHaveLength(1);
    const req = openai.requests[0]!;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['api-key']).toBeUndefined();
    expect(req.body).toEqual({
      model: 'gpt-test',
      messages: [{ role: 'system', content: request.system }, ...request.messages],
      max_tokens: 1500,
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: 'sql_draft', schema, strict: true } },
    });
  });

  it('sends no Authorization header without a key (Ollama, LM Studio, vLLM), and tolerates a ```json fence or a <think> block', async () => {
    openai.script.push(openai.answerText('```json\n{"sql": "select 1", "explanation": "one"}\n```'));
    const fenced = await openAiPlugin.complete(settings({ apiKey: null, baseUrl: `${openai.baseUrl}/` }), request, ctx());
    expect(fenced.json).toEqual({ sql: 'select 1', explanation: 'one' });
    expect(openai.requests[0]!.headers.authorization).toBeUndefined();
    expect(openai.requests[0]!.path).toBe('/v1/chat/completions');
    openai.script.push(openai.answerText('<think>\nThe user wants…\n</think>\n\n{"sql": "select 2", "explanation": "two"}'));
    expect((await openAiPlugin.complete(settings(), request, ctx())).json).toEqual({ sql: 'select 2', explanation: 'two' });
    expect(jsonText('```\n[1]\n```')).toBe('[1]');
  });

  it('uses max_completion_tokens on OpenAI\'s and Azure\'s hosts, max_tokens elsewhere', () => {
    expect(firstShape('https://api.openai.com/v1/chat/completions').tokensField).toBe('max_completion_tokens');
    expect(firstShape('https://herald-ai.openai.azure.com/openai/v1/chat/completions').tokensField).toBe('max_completion_tokens');
    expect(firstShape('http://ollama:11434/v1/chat/completions').tokensField).toBe('max_tokens');
  });

  it('sends again without temperature, or with the other tokens field, when the model refuses them, and remembers it', async () => {
    openai.script.push(openai.error(400, "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", {}, { param: 'temperature', code: 'unsupported_value' }));
    openai.script.push(openai.error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", {}, { param: 'max_tokens', code: 'unsupported_parameter' }));
    openai.script.push(openai.answerJson(draft));
    const s = settings({ model: 'reasoning-model' });
    expect((await openAiPlugin.complete(s, request, ctx())).json).toEqual(draft);
    const bodies = openai.requests.map((r) => r.body);
    expect(bodies.map((b) => [b.temperature, b.max_tokens, b.max_completion_tokens])).toEqual([[0, 1500, undefined], [undefined, 1500, undefined], [undefined, undefined, 1500]]);
    openai.script.push(openai.answerJson(draft));
    await openAiPlugin.complete(s, request, ctx());
    expect(openai.requests[3]!.body).toMatchObject({ max_completion_tokens: 1500 });
    expect(openai.requests[3]!.body.temperature).toBeUndefined();
    // Another 400 is not retried: the provider's message says why.
    openai.script.push(openai.error(400, 'max_tokens is too large: 40000. This model supports at most 16384 completion tokens.', {}, { param: 'max_tokens', code: 'invalid_value' }));
    const refused = await failure(openAiPlugin.complete(settings(), request, ctx()));
    expect([refused.code, refused.message]).toEqual(['ai.unavailable', expect.stringContaining('(HTTP 400): max_tokens is too large: 40000.')]);
    expect(openai.requests).toHaveLength(5);
  });

  it('reads an answer longer than 64 KiB', async () => {
    const long = { sql: `select '${'x'.repeat(100_000)}'`, explanation: 'long' };
    openai.script.push(openai.answerJson(long));
    expect((await openAiPlugin.complete(settings(), request, ctx())).json).toEqual(long);
  });

  it('maps the provider\'s failures to AiError codes, with its message and Retry-After, never the key', async () => {
    const keyed = await openAiPeer({ apiKey: 'sk-the-right-one-0000' });
    try {
      const wrong = await failure(openAiPlugin.complete(settings({ baseUrl: keyed.baseUrl }), request, ctx()));
      expect(wrong.code).toBe('ai.auth_failed');
      expect(wrong.message).toContain('(HTTP 401): Incorrect API key provided: [redacted]');
    } finally {
      await keyed.close();
    }
    const cases: Array<[ReturnType<OpenAiPeer['error']>, string, number | null]> = [
      [openai.error(401, `Incorrect API key provided: ${KEY}.`, {}, { code: 'invalid_api_key' }), 'ai.auth_failed', null],
      [openai.error(403, 'Project does not have access to model gpt-test', {}, { code: 'model_not_found' }), 'ai.auth_failed', null],
      [openai.error(404, 'The model `gpt-test` does not exist or you do not have access to it.', {}, { code: 'model_not_found' }), 'ai.model_not_found', null],
      [openai.error(429, 'Rate limit reached for requests', { 'retry-after': '7' }, { type: 'requests', code: 'rate_limit_exceeded' }), 'ai.rate_limited', 7000],
      [openai.error(429, 'Rate limit reached for tokens', { 'retry-after-ms': '1500', 'retry-after': '2' }), 'ai.rate_limited', 1500],
      [openai.error(500, 'The server had an error while processing your request.', {}, { type: 'server_error' }), 'ai.unavailable', null],
      [openai.error(503, 'Slow down', { 'retry-after': '3' }, { type: 'server_error' }), 'ai.unavailable', 3000],
      [openai.error(400, "This model's maximum context length is 128000 tokens.", {}, { code: 'context_length_exceeded' }), 'ai.unavailable', null],
      [openai.error(408, 'Request timed out'), 'ai.timeout', null],
    ];
    for (const [answer, code, retryAfterMs] of cases) {
      openai.script.push(answer);
      const e = await failure(openAiPlugin.complete(settings(), request, ctx()));
      expect([e.code, e.retryAfterMs]).toEqual([code, retryAfterMs]);
      expect(e.message).toMatch(/^The OpenAI-compatible server \(http:\/\/127\.0\.0\.1:\d+\)/);
    }
    // Ollama's answer to a model not pulled: 404 with its own words.
    openai.script.push({ status: 404, body: { error: { message: 'model "llama9" not found, try pulling it first', type: 'api_error', param: null, code: null } } });
    const ollama = await failure(openAiPlugin.complete(settings({ model: 'llama9' }), request, ctx()));
    expect([ollama.code, ollama.message]).toEqual(['ai.model_not_found', expect.stringContaining('model "llama9" not found, try pulling it first')]);
    // A date in Retry-After.
    openai.script.push(openai.error(429, 'Later', { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }));
    const dated = await failure(openAiPlugin.complete(settings(), request, ctx()));
    expect(dated.retryAfterMs).toBeGreaterThan(30_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('calls an answer that is not the JSON asked for ai.bad_output: prose, a refusal, cut off at max_tokens, a filtered answer, a body that is not JSON', async () => {
    const cases = [
      [openai.answerText('Sure! Here is the query: select 1'), 'not JSON'],
      [openai.answerRefusal("I'm sorry, I can't help with that."), 'refused'],
      [openai.answerText('{"sql": "select', { finishReason: 'length' }), 'cut off at max_tokens (1500)'],
      [openai.answerText('', { finishReason: 'content_filter' }), 'content filter'],
      [{ status: 200, body: '<html>gateway</html>' }, 'not a JSON object'],
      [{ status: 200, body: { object: 'chat.completion', choices: [] } }, 'without a choice'],
    ] as const;
    for (const [answer, words] of cases) {
      openai.script.push(answer);
      const e = await failure(openAiPlugin.complete(settings(), request, ctx()));
      expect([e.code, e.message]).toEqual(['ai.bad_output', expect.stringContaining(words)]);
      expect(e.message).not.toContain("I'm sorry");
    }
  });

  it('gives up after the timeout (ai.timeout), on a closed port (ai.unavailable), and to an address the guard refuses (outbound.refused)', async () => {
    openai.script.push(openai.hang());
    const slow = await failure(openAiPlugin.complete(settings({ timeoutMs: 300 }), request, ctx()));
    expect([slow.code, slow.message]).toEqual(['ai.timeout', expect.stringContaining('0.3 s')]);
    const port = await closedPort();
    const closed = await failure(openAiPlugin.complete(settings({ baseUrl: `http://127.0.0.1:${port}/v1` }), request, ctx()));
    expect([closed.code, closed.message]).toEqual(['ai.unavailable', expect.stringContaining('ECONNREFUSED')]);
    const guarded = createOutboundHttp({ allow: [] });
    const refused = await failure(openAiPlugin.complete(settings(), request, { http: guarded, signal: new AbortController().signal })).finally(() => guarded.close());
    expect(refused.code).toBe('outbound.refused');
    expect(openai.requests).toHaveLength(1);
  });

  it('rejects with the signal\'s reason when the caller aborts', async () => {
    openai.script.push(openai.hang());
    const controller = new AbortController();
    const pending = openAiPlugin.complete(settings(), request, ctx(controller.signal)).then(() => null, (e: unknown) => e);
    await openai.waitForRequests(1);
    controller.abort(new Error('the user went away'));
    const err = await pending;
    expect(err).not.toBeInstanceOf(AiError);
    expect((err as Error).message).toBe('the user went away');
  });
});

describe('anthropic', () => {
  const settings = (over: Partial<AiProviderSettings> = {}): AiProviderSettings =>
    ({ baseUrl: anthropic.baseUrl, model: 'claude-test', apiKey: KEY, timeoutMs: 5_000, maxTokens: 1800, ...over });

  it('posts the Messages body with the output schema as the one forced tool, and answers the tool\'s input', async () => {
    anthropic.script.push(anthropic.answerJson(draft, { model: 'claude-test-20250101', usage: { input_tokens: 410, output_tokens: 77 } }));
    const answer = await anthropicPlugin.complete(settings(), request, ctx());
    expect(answer).toEqual({ json: draft, model: 'claude-test-20250101', usage: { inputTokens: 410, outputTokens: 77 } });
    const req = anthropic.requests[0]!;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/messages' });
    expect(req.headers['x-api-key']).toBe(KEY);
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body).toEqual({
      model: 'claude-test',
      max_tokens: 1800,
      system: request.system,
      messages: request.messages,
      tools: [{ name: 'sql_draft', description: expect.any(String), input_schema: schema }],
      tool_choice: { type: 'tool', name: 'sql_draft' },
    });
  });

  it('maps the provider\'s failures to AiError codes, 529 (overloaded) as unavailable, never the key', async () => {
    const keyed = await anthropicPeer({ apiKey: 'sk-ant-the-right-one' });
    try {
      const wrong = await failure(anthropicPlugin.complete(settings({ baseUrl: keyed.baseUrl }), request, ctx()));
      expect([wrong.code, wrong.message]).toEqual(['ai.auth_failed', expect.stringContaining('(HTTP 401): invalid x-api-key')]);
    } finally {
      await keyed.close();
    }
    const cases: Array<[ReturnType<AnthropicPeer['error']>, string, number | null]> = [
      [anthropic.error(403, `Your API key ${KEY} does not have permission to use the specified resource.`, {}, 'permission_error'), 'ai.auth_failed', null],
      [anthropic.error(404, 'model: claude-test', {}, 'not_found_error'), 'ai.model_not_found', null],
      [anthropic.error(429, 'Number of request tokens has exceeded your per-minute rate limit', { 'retry-after': '12' }), 'ai.rate_limited', 12_000],
      [anthropic.error(500, 'Internal server error'), 'ai.unavailable', null],
      [anthropic.error(529, 'Overloaded'), 'ai.unavailable', null],
      [anthropic.error(400, 'Your credit balance is too low to access the Anthropic API.'), 'ai.unavailable', null],
    ];
    for (const [answer, code, retryAfterMs] of cases) {
      anthropic.script.push(answer);
      const e = await failure(anthropicPlugin.complete(settings(), request, ctx()));
      expect([e.code, e.retryAfterMs]).toEqual([code, retryAfterMs]);
      expect(e.message).toMatch(/^The Anthropic-compatible server \(http:\/\/127\.0\.0\.1:\d+\)/);
    }
    const unscripted = await failure(anthropicPlugin.complete(settings(), request, ctx()));
    expect([unscripted.code, unscripted.message]).toEqual(['ai.unavailable', expect.stringContaining('(HTTP 500): The test peer has no scripted answer')]);
  });

  it('calls an answer without the tool\'s input ai.bad_output: text only, cut off at max_tokens, a refusal, not JSON', async () => {
    const cases = [
      [anthropic.answerText('Here is the query: select 1'), 'without the sql_draft tool\'s input (stop_reason end_turn)'],
      [anthropic.answerJson({ sql: 'select' }, { stopReason: 'max_tokens' }), 'cut off at max_tokens (1800)'],
      [anthropic.answerText('', { stopReason: 'refusal' }), 'refused'],
      [{ status: 200, body: 'upstream connect error' }, 'not a JSON object'],
    ] as const;
    for (const [answer, words] of cases) {
      anthropic.script.push(answer);
      const e = await failure(anthropicPlugin.complete(settings(), request, ctx()));
      expect([e.code, e.message]).toEqual(['ai.bad_output', expect.stringContaining(words)]);
    }
  });

  it('gives up after the timeout (ai.timeout), on a closed port (ai.unavailable), and to an address the guard refuses (outbound.refused)', async () => {
    anthropic.script.push(anthropic.hang());
    expect((await failure(anthropicPlugin.complete(settings({ timeoutMs: 300 }), request, ctx()))).code).toBe('ai.timeout');
    const port = await closedPort();
    expect((await failure(anthropicPlugin.complete(settings({ baseUrl: `http://127.0.0.1:${port}` }), request, ctx()))).code).toBe('ai.unavailable');
    const guarded = createOutboundHttp({ allow: [] });
    const refused = await failure(anthropicPlugin.complete(settings(), request, { http: guarded, signal: new AbortController().signal })).finally(() => guarded.close());
    expect(refused.code).toBe('outbound.refused');
  });
});

describe('manifests', () => {
  it('lists both as kind ai, the API key secret, every setting labelled in en and de, and a default model', () => {
    const registry = createPluginRegistry(builtInPlugins);
    for (const id of ['openai', 'anthropic']) {
      const plugin = registry.ai(id)!;
      expect(plugin.manifest).toMatchObject({ id, kind: 'ai', version: '1.0.0' });
      expect(plugin.defaultModel).toEqual(expect.any(String));
      const properties = plugin.manifest.settingsSchema.properties as Record<string, Record<string, unknown>>;
      expect(Object.keys(properties)).toEqual(['base_url', 'model', 'api_key', 'timeout_seconds', 'max_tokens']);
      expect(properties.api_key!['x-secret']).toBe(true);
      for (const locale of ['en', 'de']) {
        const t = plugin.manifest.translations[locale]!;
        expect(t.name).toEqual(expect.any(String));
        for (const field of Object.keys(properties)) for (const part of ['label', 'help']) expect([field, part, t[`settings.${field}.${part}`]]).toEqual([field, part, expect.any(String)]);
        for (const c of plugin.manifest.capabilities) expect(t[`capabilities.${c}`]).toEqual(expect.any(String));
      }
      expect(registry.channel(id)).toBeUndefined();
    }
  });
});
