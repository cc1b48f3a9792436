import type { PluginManifest } from '../../domain/plugins/plugin.js';
import { AI_CAPABILITIES, aiLabels, aiSettingsSchema } from '../shared/ai-manifest.js';

export const openAiManifest: PluginManifest & { kind: 'ai' } = {
  id: 'openai',
  version: '1.0.0',
  kind: 'ai',
  settingsSchema: aiSettingsSchema,
  capabilities: AI_CAPABILITIES,
  translations: {
    en: {
      name: 'OpenAI or compatible (Ollama, LM Studio, vLLM, OpenRouter, Azure OpenAI)',
      ...aiLabels.en,
      'settings.base_url.help': 'Empty for OpenAI (https://api.openai.com/v1). Any server with the OpenAI Chat Completions API: Ollama http://ollama:11434/v1, LM Studio http://host:1234/v1, vLLM http://host:8000/v1, OpenRouter https://openrouter.ai/api/v1, Azure OpenAI https://<resource>.openai.azure.com/openai/v1 (its v1 API; the model is the deployment name). A server on your network must be named in SVC_OUTBOUND_ALLOW.',
      'settings.model.help': 'The model id, e.g. gpt-4.1-mini (the default), gpt-5-mini, llama3.1:8b for Ollama, or the deployment name on Azure. Choose one with structured outputs (JSON Schema).',
      'settings.api_key.help': 'Sent as a Bearer token. Leave empty for local servers that need none (Ollama, LM Studio, vLLM). Stored encrypted and never shown again.',
    },
    de: {
      name: 'OpenAI oder kompatibel (Ollama, LM Studio, vLLM, OpenRouter, Azure OpenAI)',
      ...aiLabels.de,
      'settings.base_url.help': 'Leer für OpenAI (https://api.openai.com/v1). Jeder Server mit der Chat-Completions-API von OpenAI: Ollama http://ollama:11434/v1, LM Studio http://host:1234/v1, vLLM http://host:8000/v1, OpenRouter https://openrouter.ai/api/v1, Azure OpenAI https://<ressource>.openai.azure.com/openai/v1 (die v1-API; das Modell ist der Name der Bereitstellung). Ein Server in Ihrem Netz muss in SVC_OUTBOUND_ALLOW genannt sein.',
      'settings.model.help': 'Die Modell-ID, z. B. gpt-4.1-mini (die Vorgabe), gpt-5-mini, llama3.1:8b für Ollama oder der Name der Bereitstellung bei Azure. Wählen Sie eines mit strukturierten Ausgaben (JSON Schema).',
      'settings.api_key.help': 'Wird als Bearer-Token gesendet. Leer lassen für lokale Server, die keinen brauchen (Ollama, LM Studio, vLLM). Wird verschlüsselt gespeichert und nie wieder angezeigt.',
    },
  },
};
