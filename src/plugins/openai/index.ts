/**
 * The OpenAI provider: the Chat Completions API (POST {base_url}/chat/completions), which OpenAI
 * and the servers that copy it speak (Ollama, LM Studio, vLLM, OpenRouter, Azure OpenAI's v1
 * endpoint). The answer's shape is asked for with response_format json_schema, strict.
 *
 * The body: {model, messages: [{role: system, content: system}, …messages], <tokens field>: max
 * tokens, temperature: 0, response_format: {type: json_schema, json_schema: {name, schema, strict:
 * true}}}. The tokens field is max_completion_tokens for OpenAI's own host and Azure's (OpenAI's
 * reasoning models refuse max_tokens) and max_tokens elsewhere (what compatible servers know).
 * When the server refuses one of these parameters (HTTP 400 naming temperature, max_tokens or
 * max_completion_tokens, as OpenAI's reasoning models do for temperature 0), the request is sent
 * again without temperature, or with the other tokens field, at most twice, and the shape that
 * worked is remembered for that address and model while the process lives.
 *
 * Authorization: Bearer <key>, left out without a key (local servers need none); Azure hosts
 * also get the api-key header. The answer is choices[0].message.content parsed as JSON (a ```json
 * fence or a leading <think>…</think> block that some local models add is tolerated); a refusal,
 * finish_reason length or content_filter, or content that is not JSON is ai.bad_output.
 */
import { AiError, type AiPlugin, type AiProviderSettings, type AiRequest } from '../../domain/plugins/ai.js';
import type { OutboundResponse } from '../../domain/plugins/channel.js';
import { answerBody, endpoint, failure, originOf, post, timeLeft, tokens, type ProviderPost } from '../shared/ai-call.js';
import { openAiManifest } from './manifest.js';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
const AZURE = /\.(openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/i;

/** What a server accepts of the parameters that differ between models and servers. */
export interface RequestShape {
  temperature: boolean;
  tokensField: 'max_tokens' | 'max_completion_tokens';
}

const learned = new Map<string, RequestShape>();
const MAX_LEARNED = 200;

function hostOf(url: string): string {
  try { return new URL(url).hostname.toLowerCase(); } catch { return ''; }
}

/** The shape a first request has: OpenAI's and Azure's hosts take max_completion_tokens. */
export function firstShape(url: string): RequestShape {
  const host = hostOf(url);
  return { temperature: true, tokensField: host === 'api.openai.com' || AZURE.test(host) ? 'max_completion_tokens' : 'max_tokens' };
}

export function chatCompletionsBody(settings: AiProviderSettings, request: AiRequest, shape: RequestShape): Record<string, unknown> {
  return {
    model: settings.model,
    messages: [{ role: 'system', content: request.system }, ...request.messages.map((m) => ({ role: m.role, content: m.content }))],
    [shape.tokensField]: settings.maxTokens,
    ...(shape.temperature ? { temperature: 0 } : {}),
    response_format: { type: 'json_schema', json_schema: { name: request.output.name, schema: request.output.schema, strict: true } },
  };
}

/** The shape to try after a 400 that names a parameter this shape sends, or null. */
export function adjustedShape(shape: RequestShape, res: OutboundResponse): RequestShape | null {
  if (res.status !== 400) return null;
  let error: { param?: unknown; message?: unknown; code?: unknown } | undefined;
  try {
    error = (JSON.parse(res.body) as { error?: typeof error }).error;
  } catch { return null; }
  const message = typeof error?.message === 'string' ? error.message : '';
  // Only a parameter the model or server does not take at all ("max_tokens is too large" is not one).
  const unsupported = /^unsupported_/.test(String(error?.code ?? '')) || /unsupported|not supported|unrecognized|unknown/i.test(message);
  if (!unsupported) return null;
  const param = typeof error?.param === 'string' ? error.param : /\b(temperature|max_tokens|max_completion_tokens)\b/.exec(message)?.[1];
  if (param === 'temperature' && shape.temperature) return { ...shape, temperature: false };
  if (param === shape.tokensField) return { ...shape, tokensField: shape.tokensField === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens' };
  return null;
}

/** The text of a model's answer, without a ```json fence or a leading <think> block. */
export function jsonText(content: string): string {
  let text = content.trim().replace(/^<think>[\s\S]*?<\/think>\s*/, '');
  const fenced = /^```[A-Za-z]*\s*\n?([\s\S]*?)\n?\s*```$/.exec(text);
  if (fenced) text = fenced[1]!.trim();
  return text;
}

function contentOf(message: Record<string, unknown>): string | null {
  const c = message.content;
  if (typeof c === 'string') return c;
  // Some servers answer content parts; the text ones, joined.
  if (Array.isArray(c)) return c.map((p: { type?: unknown; text?: unknown }) => (p?.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
  return null;
}

function read(res: OutboundResponse, call: ProviderPost, settings: AiProviderSettings) {
  const body = answerBody(res, call);
  const choice = (Array.isArray(body.choices) ? body.choices[0] : undefined) as { message?: Record<string, unknown>; finish_reason?: unknown } | undefined;
  if (!choice?.message) throw new AiError('ai.bad_output', `${call.peer} answered without a choice`);
  const refusal = choice.message.refusal;
  if (typeof refusal === 'string' && refusal !== '') throw new AiError('ai.bad_output', `The model refused to answer (${call.peer})`);
  if (choice.finish_reason === 'length') {
    throw new AiError('ai.bad_output', `The answer was cut off at max_tokens (${settings.maxTokens}) (${call.peer}); raise max_tokens or shorten the request`);
  }
  if (choice.finish_reason === 'content_filter') throw new AiError('ai.bad_output', `The provider's content filter withheld the answer (${call.peer})`);
  const content = contentOf(choice.message);
  let json: unknown;
  try {
    json = JSON.parse(jsonText(content ?? ''));
  } catch {
    throw new AiError('ai.bad_output', `The model answered text that is not JSON (${content?.length ?? 0} characters) (${call.peer}); choose a model with structured outputs`);
  }
  const usage = (body.usage ?? {}) as { prompt_tokens?: unknown; completion_tokens?: unknown };
  return {
    json,
    model: typeof body.model === 'string' && body.model !== '' ? body.model : settings.model,
    usage: { inputTokens: tokens(usage.prompt_tokens), outputTokens: tokens(usage.completion_tokens) },
  };
}

export const openAiPlugin: AiPlugin = {
  manifest: openAiManifest,
  defaultModel: 'gpt-4.1-mini',
  async complete(settings, request, ctx) {
    const base = settings.baseUrl ?? OPENAI_BASE_URL;
    const url = endpoint(base, '/chat/completions');
    const headers: Record<string, string> = {};
    if (settings.apiKey) {
      headers.authorization = `Bearer ${settings.apiKey}`;
      if (AZURE.test(hostOf(url))) headers['api-key'] = settings.apiKey;
    }
    const peer = settings.baseUrl ? `The OpenAI-compatible server (${originOf(url)})` : `OpenAI (${originOf(url)})`;
    const key = `${url} ${settings.model}`;
    const left = timeLeft(settings);
    let shape = learned.get(key) ?? firstShape(url);
    for (let attempt = 0; ; attempt++) {
      const call: ProviderPost = { peer, url, headers, body: chatCompletionsBody(settings, request, shape) };
      const res = await post(call, settings, ctx, left);
      const next = attempt < 2 ? adjustedShape(shape, res) : null;
      if (next) {
        shape = next;
        if (learned.size >= MAX_LEARNED) learned.delete(learned.keys().next().value!);
        learned.set(key, shape);
        continue;
      }
      if (res.status < 200 || res.status >= 300) throw failure(res, call, settings);
      return read(res, call, settings);
    }
  },
};
