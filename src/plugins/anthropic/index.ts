/**
 * The Anthropic provider: the Messages API (POST {base_url}/v1/messages, anthropic-version
 * 2023-06-01, the key in x-api-key). The answer's shape is asked for as one tool whose input
 * schema is the output schema, with tool_choice forcing that tool; the answer is the input of the
 * tool_use block.
 *
 * The body: {model, max_tokens, system, messages, tools: [{name, description, input_schema}],
 * tool_choice: {type: tool, name}}. An answer without a tool_use block, or with stop_reason
 * max_tokens (the input may be cut short) or refusal, is ai.bad_output. HTTP 529 (overloaded) is
 * ai.unavailable like a 5xx (src/plugins/shared/ai-call.ts has the whole table).
 */
import { AiError, type AiPlugin, type AiProviderSettings, type AiRequest } from '../../domain/plugins/ai.js';
import type { OutboundResponse } from '../../domain/plugins/channel.js';
import { answerBody, endpoint, failure, originOf, post, timeLeft, tokens, type ProviderPost } from '../shared/ai-call.js';
import { anthropicManifest } from './manifest.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';

export function messagesBody(settings: AiProviderSettings, request: AiRequest): Record<string, unknown> {
  const name = request.output.name;
  return {
    model: settings.model,
    max_tokens: settings.maxTokens,
    system: request.system,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    tools: [{ name, description: `Gives the answer. Call it once, with the whole answer as its input.`, input_schema: request.output.schema }],
    tool_choice: { type: 'tool', name },
  };
}

interface Block { type?: unknown; name?: unknown; input?: unknown }

function read(res: OutboundResponse, call: ProviderPost, settings: AiProviderSettings, name: string) {
  const body = answerBody(res, call);
  if (body.stop_reason === 'max_tokens') {
    throw new AiError('ai.bad_output', `The answer was cut off at max_tokens (${settings.maxTokens}) (${call.peer}); raise max_tokens or shorten the request`);
  }
  if (body.stop_reason === 'refusal') throw new AiError('ai.bad_output', `The model refused to answer (${call.peer})`);
  const blocks = (Array.isArray(body.content) ? body.content : []) as Block[];
  const uses = blocks.filter((b) => b?.type === 'tool_use');
  const use = uses.find((b) => b.name === name) ?? uses[0];
  if (!use) {
    throw new AiError('ai.bad_output', `The model answered without the ${name} tool's input (stop_reason ${String(body.stop_reason ?? 'none')}) (${call.peer})`);
  }
  if (!use.input || typeof use.input !== 'object') throw new AiError('ai.bad_output', `The model's tool input is not a JSON object (${call.peer})`);
  const usage = (body.usage ?? {}) as { input_tokens?: unknown; output_tokens?: unknown };
  return {
    json: use.input,
    model: typeof body.model === 'string' && body.model !== '' ? body.model : settings.model,
    usage: { inputTokens: tokens(usage.input_tokens), outputTokens: tokens(usage.output_tokens) },
  };
}

export const anthropicPlugin: AiPlugin = {
  manifest: anthropicManifest,
  defaultModel: 'claude-sonnet-4-6',
  async complete(settings, request, ctx) {
    const url = endpoint(settings.baseUrl ?? ANTHROPIC_BASE_URL, '/v1/messages');
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (settings.apiKey) headers['x-api-key'] = settings.apiKey;
    const peer = settings.baseUrl ? `The Anthropic-compatible server (${originOf(url)})` : `Anthropic (${originOf(url)})`;
    const call: ProviderPost = { peer, url, headers, body: messagesBody(settings, request) };
    const res = await post(call, settings, ctx, timeLeft(settings));
    if (res.status < 200 || res.status >= 300) throw failure(res, call, settings);
    return read(res, call, settings, request.output.name);
  },
};
