import type { Handler } from '../types.js';
import { secretWrite } from '../ai-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'aiSettings'>;

export const testAiSettings = (d: Deps): Handler<'testAiSettings'> => async (req) => {
  const b = req.body;
  const r = await d.aiSettings.test({
    provider: b.provider, model: b.model, baseUrl: b.base_url, apiKey: secretWrite(b.api_key), timeoutSeconds: b.timeout_seconds, maxTokens: b.max_tokens,
  });
  return { status: 200, body: { ok: r.ok, elapsed_ms: r.elapsedMs, ...(r.model ? { model: r.model } : {}), ...(r.error ? { error: r.error } : {}) } };
};
