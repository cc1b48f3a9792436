/**
 * The AI provider plugins' interface (kind `ai`): one structured-output request, the answer as
 * parsed JSON. A provider sends the system text, the messages and a JSON Schema the answer must
 * follow (Chat Completions' response_format json_schema; Anthropic Messages' tool input), with a
 * token cap, through the outbound guard with the settings' timeout, and maps the provider's
 * failures to AiError codes. A plugin never logs prompts or answers.
 */
import type { JsonSchema, Plugin } from './plugin.js';
import type { OutboundHttp } from './channel.js';

export interface AiProviderSettings {
  /** The provider's address; null for the provider's own (https://api.openai.com/v1, https://api.anthropic.com). */
  baseUrl: string | null;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
  maxTokens: number;
}

export interface AiMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface AiRequest {
  /** Instructions; data (schemas, comments, drafts) goes in the messages, fenced, never here. */
  system: string;
  messages: AiMessage[];
  /** The answer's shape: a name (letters, digits, _ and -) and a JSON Schema of an object. */
  output: { name: string; schema: JsonSchema };
}

export interface AiAnswer {
  /** The parsed JSON the provider answered (not yet checked against the schema). */
  json: unknown;
  /** The model that answered, as the provider names it. */
  model: string;
  usage: { inputTokens: number | null; outputTokens: number | null };
}

export type AiErrorCode = 'ai.auth_failed' | 'ai.model_not_found' | 'ai.rate_limited' | 'ai.unavailable' | 'ai.timeout' | 'ai.bad_output' | 'outbound.refused';

/** A provider call that did not give a usable answer; the message never holds the key or the prompt. */
export class AiError extends Error {
  constructor(readonly code: AiErrorCode, message: string, readonly retryAfterMs: number | null = null) {
    super(message);
    this.name = 'AiError';
  }
}

export interface AiContext {
  http: OutboundHttp;
  signal: AbortSignal;
}

export interface AiPlugin extends Plugin<'ai'> {
  /** The model used when the settings name none (null: the settings must name one). */
  defaultModel: string | null;
  /** Sends one request; throws AiError. */
  complete(settings: AiProviderSettings, request: AiRequest, ctx: AiContext): Promise<AiAnswer>;
}
