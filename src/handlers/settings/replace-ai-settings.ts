import type { Handler } from '../types.js';
import { actorOf } from '../identity-views.js';
import { aiSettingsView, secretWrite } from '../ai-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'aiSettings'>;

export const replaceAiSettings = (d: Deps): Handler<'replaceAiSettings'> => async (req) => {
  const b = req.body;
  const saved = await d.aiSettings.replace({
    version: b.version, provider: b.provider, model: b.model, baseUrl: b.base_url, apiKey: secretWrite(b.api_key),
    timeoutSeconds: b.timeout_seconds, maxTokens: b.max_tokens, sendSampleValues: b.send_sample_values,
  }, actorOf(req.ctx));
  return { status: 200, body: aiSettingsView(saved) };
};
