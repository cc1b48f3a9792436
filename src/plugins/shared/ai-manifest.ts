/**
 * The settings every AI provider plugin takes (they mirror ReplaceAiSettings in openapi.yaml:
 * base_url, model, api_key, timeout_seconds, max_tokens) and their shared labels; each plugin
 * adds its name and the help texts that name its provider.
 */
import type { JsonSchema } from '../../domain/plugins/plugin.js';

export const aiSettingsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    base_url: { type: 'string', format: 'uri', maxLength: 2000, nullable: true, description: "The provider's address; empty for the provider's own" },
    model: { type: 'string', maxLength: 200, nullable: true, description: "The model's id; empty for the plugin's default" },
    api_key: { type: 'string', maxLength: 4096, format: 'password', writeOnly: true, 'x-secret': true, nullable: true, description: 'Stored encrypted, never returned' },
    timeout_seconds: { type: 'integer', minimum: 5, maximum: 300, default: 60 },
    max_tokens: { type: 'integer', minimum: 256, maximum: 32000, default: 2000 },
  },
};

export const AI_CAPABILITIES = ['structured_output'];

export const aiLabels = {
  en: {
    'settings.base_url.label': 'Base URL',
    'settings.model.label': 'Model',
    'settings.api_key.label': 'API key',
    'settings.timeout_seconds.label': 'Time limit (seconds)',
    'settings.timeout_seconds.help': 'How long one request may take, 5 to 300 seconds. Local models on a CPU may need more than the default 60.',
    'settings.max_tokens.label': 'Maximum answer tokens',
    'settings.max_tokens.help': "The cap on one answer's length (256 to 32,000). An answer cut off at the cap is not usable; reasoning models count their thinking too.",
    'capabilities.structured_output': 'Answers in the JSON shape Herald asks for',
  },
  de: {
    'settings.base_url.label': 'Basis-URL',
    'settings.model.label': 'Modell',
    'settings.api_key.label': 'API-Schlüssel',
    'settings.timeout_seconds.label': 'Zeitlimit (Sekunden)',
    'settings.timeout_seconds.help': 'Wie lange eine Anfrage dauern darf, 5 bis 300 Sekunden. Lokale Modelle auf einer CPU brauchen womöglich mehr als die vorgegebenen 60.',
    'settings.max_tokens.label': 'Höchstzahl an Antwort-Tokens',
    'settings.max_tokens.help': 'Die Obergrenze für die Länge einer Antwort (256 bis 32.000). Eine an der Grenze abgeschnittene Antwort ist unbrauchbar; Reasoning-Modelle zählen ihr Nachdenken mit.',
    'capabilities.structured_output': 'Antwortet in der JSON-Form, die Herald verlangt',
  },
} as const;
