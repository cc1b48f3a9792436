/** The AI settings and proposals as the contract shows them. */
import type { components } from '../generated/openapi.js';
import type { AiSettings } from '../domain/assistant/ai-settings.js';
import type { QueryProposal, ScheduleProposal } from '../domain/assistant/assistant-service.js';

type Schemas = components['schemas'];

export const aiSettingsView = (s: AiSettings): Schemas['AiSettings'] => ({
  provider: s.provider, model: s.model, base_url: s.baseUrl, api_key: s.hasApiKey ? { configured: true } : null,
  timeout_seconds: s.timeoutSeconds, max_tokens: s.maxTokens, send_sample_values: s.sendSampleValues,
  version: s.version, updated_at: s.updatedAt?.toISOString() ?? null,
});

export function proposalView(p: QueryProposal | ScheduleProposal): Schemas['AiProposal'] {
  if (p.kind === 'schedule') {
    return { kind: 'schedule', source: p.source, schedule: p.schedule, description: p.description, next: p.next.map((d) => d.toISOString()), explanation: p.explanation };
  }
  return {
    kind: 'query', source: p.source, sql: p.sql, parameters: p.parameters, repaired: p.repaired, explanation: p.explanation,
    validation: { ok: p.validation.ok, explained: p.validation.explained, errors: p.validation.errors },
  };
}

/** {configured: true} or an omitted field keeps a stored secret; a string replaces it; null removes it. */
export const secretWrite = (v: unknown): string | null | undefined => (v === undefined || (typeof v === 'object' && v !== null) ? undefined : v as string | null);
