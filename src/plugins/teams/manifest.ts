import type { PluginManifest } from '../../domain/plugins/plugin.js';

export const teamsManifest: PluginManifest & { kind: 'channel' } = {
  id: 'teams',
  version: '1.0.0',
  kind: 'channel',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['webhook_url'],
    properties: {
      webhook_url: { type: 'string', format: 'uri', maxLength: 4096, writeOnly: true, 'x-secret': true, description: 'The URL of a Teams workflow ("When a Teams webhook request is received")' },
    },
  },
  capabilities: ['inline_table', 'links'],
  translations: {
    en: {
      name: 'Microsoft Teams',
      'settings.webhook_url.label': 'Workflow webhook URL',
      'settings.webhook_url.help': 'From a Teams workflow started by "When a Teams webhook request is received". It is a secret: stored encrypted and never shown again.',
      'capabilities.inline_table': 'Shows the first rows as a table',
      'capabilities.links': 'Includes a link to the result',
    },
    de: {
      name: 'Microsoft Teams',
      'settings.webhook_url.label': 'Workflow-Webhook-URL',
      'settings.webhook_url.help': 'Aus einem Teams-Workflow, der mit „Wenn eine Teams-Webhookanforderung empfangen wird“ beginnt. Sie ist geheim: wird verschlüsselt gespeichert und nie wieder angezeigt.',
      'capabilities.inline_table': 'Zeigt die ersten Zeilen als Tabelle',
      'capabilities.links': 'Enthält einen Link zum Ergebnis',
    },
  },
};
