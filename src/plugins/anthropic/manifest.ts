import type { PluginManifest } from '../../domain/plugins/plugin.js';
import { AI_CAPABILITIES, aiLabels, aiSettingsSchema } from '../shared/ai-manifest.js';

export const anthropicManifest: PluginManifest & { kind: 'ai' } = {
  id: 'anthropic',
  version: '1.0.0',
  kind: 'ai',
  settingsSchema: aiSettingsSchema,
  capabilities: AI_CAPABILITIES,
  translations: {
    en: {
      name: 'Anthropic (Claude)',
      ...aiLabels.en,
      'settings.base_url.help': 'Empty for Anthropic (https://api.anthropic.com); a gateway that speaks the Messages API otherwise (Herald appends /v1/messages).',
      'settings.model.help': 'The model id, e.g. claude-sonnet-4-6 (the default) or claude-haiku-4-5 for faster, cheaper answers.',
      'settings.api_key.help': 'Your Anthropic API key (sk-ant-…), sent as x-api-key. Stored encrypted and never shown again.',
    },
    de: {
      name: 'Anthropic (Claude)',
      ...aiLabels.de,
      'settings.base_url.help': 'Leer für Anthropic (https://api.anthropic.com); sonst ein Gateway, das die Messages-API spricht (Herald hängt /v1/messages an).',
      'settings.model.help': 'Die Modell-ID, z. B. claude-sonnet-4-6 (die Vorgabe) oder claude-haiku-4-5 für schnellere, günstigere Antworten.',
      'settings.api_key.help': 'Ihr Anthropic-API-Schlüssel (sk-ant-…), gesendet als x-api-key. Wird verschlüsselt gespeichert und nie wieder angezeigt.',
    },
  },
};
