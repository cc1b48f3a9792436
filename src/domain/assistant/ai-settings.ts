/**
 * The AI settings (GET/PUT /settings/ai, POST /settings/ai/test): the provider (`off`, the
 * default, or an installed ai plugin), its address, model, API key (sealed in the workspace
 * settings' secrets, never returned), the timeout, the token cap and whether sample values may
 * leave the instance. A change is a security event. The test sends one small request with unsaved
 * settings and answers ok, the model and the time, or the error class.
 */
import type { Clock } from '../../core/clock.js';
import { validationFailed, type FieldProblem } from '../../core/errors.js';
import type { Secrets } from '../../core/secrets.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import type { SettingsRecord } from '../identity/model.js';
import type { SettingsRepo } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import { AiError, type AiPlugin, type AiProviderSettings, type OutboundAi } from './ports.js';

export const AI_KEY = 'ai';
const secretsContext = `workspace_settings.secrets:${AI_KEY}`;
export const DEFAULT_TIMEOUT_SECONDS = 60;
export const DEFAULT_MAX_TOKENS = 2000;

export interface AiSettings {
  provider: string;
  model: string | null;
  baseUrl: string | null;
  hasApiKey: boolean;
  timeoutSeconds: number;
  maxTokens: number;
  sendSampleValues: boolean;
  version: number;
  /** Null until the settings are first saved. */
  updatedAt: Date | null;
}

/** A secret write: a string replaces, null removes, undefined keeps. */
export type SecretChange = string | null | undefined;

export interface AiSettingsInput {
  provider: string;
  model?: string | null | undefined;
  baseUrl?: string | null | undefined;
  apiKey: SecretChange;
  timeoutSeconds?: number | undefined;
  maxTokens?: number | undefined;
  sendSampleValues?: boolean | undefined;
}

export function readAiSettings(row: SettingsRecord | undefined): AiSettings {
  const v = row?.value ?? {};
  return {
    provider: typeof v.provider === 'string' ? v.provider : 'off',
    model: typeof v.model === 'string' ? v.model : null,
    baseUrl: typeof v.base_url === 'string' ? v.base_url : null,
    hasApiKey: !!row?.secretsSealed,
    timeoutSeconds: typeof v.timeout_seconds === 'number' ? v.timeout_seconds : DEFAULT_TIMEOUT_SECONDS,
    maxTokens: typeof v.max_tokens === 'number' ? v.max_tokens : DEFAULT_MAX_TOKENS,
    sendSampleValues: v.send_sample_values === true,
    version: row?.version ?? 1,
    updatedAt: row?.updatedAt ?? null,
  };
}

export interface AiPlugins {
  ai(id: string): AiPlugin | undefined;
  list(): Array<{ id: string; kind: string }>;
}

export function createAiSettingsService(deps: {
  settings: SettingsRepo; uow: UnitOfWork; secrets: Secrets; clock: Clock; plugins: AiPlugins; outbound: OutboundAi;
}) {
  const { clock } = deps;
  const apiKeyOf = (row: SettingsRecord | undefined): string | null =>
    (row?.secretsSealed ? (JSON.parse(deps.secrets.open(row.secretsSealed, secretsContext)) as { api_key?: string }).api_key ?? null : null);

  /** The provider plugin and its settings, checked; throws validation.failed naming the fields. */
  function resolve(input: AiSettingsInput, storedKey: string | null): { plugin: AiPlugin; settings: AiProviderSettings } | null {
    if (input.provider === 'off') return null;
    const problems: FieldProblem[] = [];
    const plugin = deps.plugins.ai(input.provider);
    if (!plugin) {
      const known = ['off', ...deps.plugins.list().filter((p) => p.kind === 'ai').map((p) => p.id)].join(', ');
      throw validationFailed([{ field: 'provider', code: 'validation.enum', message: `must be one of: ${known}` }]);
    }
    const model = input.model ?? plugin.defaultModel;
    if (!model) problems.push({ field: 'model', code: 'validation.required', message: `${input.provider} needs a model` });
    if (input.baseUrl) {
      let u: URL | undefined;
      try { u = new URL(input.baseUrl); } catch { /* below */ }
      if (!u || !['http:', 'https:'].includes(u.protocol)) problems.push({ field: 'base_url', code: 'validation.format', message: 'must be an http(s) URL' });
      else if (u.protocol === 'http:' && !deps.outbound.allowsHost(input.baseUrl)) {
        problems.push({ field: 'base_url', code: 'validation.format', message: 'must be https, or http to a host SVC_OUTBOUND_ALLOW names (a local Ollama: SVC_OUTBOUND_ALLOW=127.0.0.1)' });
      }
    }
    if (problems.length > 0) throw validationFailed(problems);
    const apiKey = input.apiKey === undefined ? storedKey : input.apiKey;
    return {
      plugin,
      settings: {
        baseUrl: input.baseUrl ?? null, model: model!, apiKey,
        timeoutMs: (input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000, maxTokens: input.maxTokens ?? DEFAULT_MAX_TOKENS,
      },
    };
  }

  return {
    async get(): Promise<AiSettings> {
      return readAiSettings(await deps.settings.get(AI_KEY));
    },

    /** The provider in use with its opened settings, or null while the assistant is off (or its plugin is gone). */
    async active(): Promise<{ plugin: AiPlugin; settings: AiProviderSettings; sendSampleValues: boolean; provider: string } | { off: string }> {
      const row = await deps.settings.get(AI_KEY);
      const s = readAiSettings(row);
      if (s.provider === 'off') return { off: 'The assistant is off: an admin chooses a provider with PUT /api/v1/settings/ai' };
      const plugin = deps.plugins.ai(s.provider);
      if (!plugin) return { off: `The provider plugin ${s.provider} is not installed` };
      return {
        plugin, provider: s.provider, sendSampleValues: s.sendSampleValues,
        settings: { baseUrl: s.baseUrl, model: s.model ?? plugin.defaultModel ?? '', apiKey: apiKeyOf(row), timeoutMs: s.timeoutSeconds * 1000, maxTokens: s.maxTokens },
      };
    },

    async replace(input: AiSettingsInput & { version: number }, actor: Actor): Promise<AiSettings> {
      return deps.uow.run(async (tx) => {
        const row = await tx.workspaceSettings.get(AI_KEY);
        const resolved = resolve(input, apiKeyOf(row));
        const apiKey = input.apiKey === undefined ? apiKeyOf(row) : input.apiKey;
        const value = {
          provider: input.provider, model: input.model ?? resolved?.settings.model ?? null, base_url: input.baseUrl ?? null,
          timeout_seconds: input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, max_tokens: input.maxTokens ?? DEFAULT_MAX_TOKENS,
          send_sample_values: input.sendSampleValues ?? false,
        };
        const sealed = apiKey ? deps.secrets.seal(JSON.stringify({ api_key: apiKey }), secretsContext) : null;
        const saved = await tx.workspaceSettings.put(AI_KEY, input.version, value, sealed, clock.now());
        await recordSecurityEvent(tx.securityEvents, {
          type: 'settings.ai_updated', actor,
          details: {
            provider: value.provider, model: value.model, base_url: value.base_url ? new URL(value.base_url).origin : null,
            api_key_changed: input.apiKey !== undefined, send_sample_values: value.send_sample_values,
          },
        }, clock);
        return readAiSettings(saved);
      });
    },

    /** One small request with these (unsaved) settings: ok, the model and the time, or the error class. */
    async test(input: AiSettingsInput): Promise<{ ok: boolean; model?: string; elapsedMs: number; error?: { code: string; message: string } }> {
      const resolved = resolve(input, apiKeyOf(await deps.settings.get(AI_KEY)));
      if (!resolved) throw validationFailed([{ field: 'provider', code: 'validation.invalid', message: 'choose a provider to test (off has nothing to test)' }]);
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const answer = await resolved.plugin.complete({ ...resolved.settings, maxTokens: Math.min(resolved.settings.maxTokens, 256) }, {
          system: 'You are a connectivity check. Answer with the JSON object {"ok": true}.',
          messages: [{ role: 'user', content: 'Answer {"ok": true}.' }],
          output: { name: 'connectivity_check', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } },
        }, { http: deps.outbound, signal: AbortSignal.timeout(resolved.settings.timeoutMs + 1000) });
        return { ok: true, model: answer.model, elapsedMs: elapsed() };
      } catch (err) {
        if (err instanceof AiError) return { ok: false, elapsedMs: elapsed(), error: { code: err.code, message: err.message } };
        throw err;
      }
    },
  };
}

export type AiSettingsService = ReturnType<typeof createAiSettingsService>;
