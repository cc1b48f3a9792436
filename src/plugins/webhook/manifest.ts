import type { PluginManifest } from '../../domain/plugins/plugin.js';

export const webhookManifest: PluginManifest & { kind: 'channel' } = {
  id: 'webhook',
  version: '1.0.0',
  kind: 'channel',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url'],
    properties: {
      url: { type: 'string', format: 'uri', maxLength: 2048, description: 'The URL (https, best) that receives a JSON POST' },
      headers: {
        type: 'object', maxProperties: 20, 'x-secret': true, writeOnly: true,
        additionalProperties: { type: 'string', maxLength: 4096 },
        propertyNames: { pattern: '^[!#$%&\'*+.^_`|~0-9A-Za-z-]{1,100}$' },
        description: 'Extra request headers (name → value); stored encrypted as a whole, as they usually carry tokens',
      },
      signing_secret: {
        type: 'string', pattern: '^whsec_[A-Za-z0-9+/=]{32,}$', 'x-secret': true, writeOnly: true,
        description: 'Standard Webhooks secret ("whsec_" + base64 of 24 or more random bytes); requests are unsigned without it',
      },
      cross_origin_redirects: {
        type: 'string', enum: ['follow', 'refuse'], default: 'follow',
        description: 'A redirect to another origin: follow it without the extra headers (the signature goes along), or refuse it (the attempt fails, not retried)',
      },
    },
  },
  capabilities: ['attachments', 'inline_table', 'links'],
  translations: {
    en: {
      name: 'Webhook',
      'settings.url.label': 'URL',
      'settings.url.help': 'The address (https, best) that receives each delivery as a JSON POST.',
      'settings.headers.label': 'Headers',
      'settings.headers.help': 'Extra request headers, e.g. Authorization. Stored encrypted and never shown again.',
      'settings.signing_secret.label': 'Signing secret',
      'settings.signing_secret.help': 'whsec_… secret: requests carry webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks) so the receiver can verify them and drop duplicates.',
      'settings.cross_origin_redirects.label': 'Redirects to another address',
      'settings.cross_origin_redirects.help': 'follow: go on to the new address, without the extra headers (the signature goes along); refuse: the delivery fails there.',
      'capabilities.attachments': 'Sends the result file (base64 in the JSON body)',
      'capabilities.inline_table': 'Sends the first rows as a table',
      'capabilities.links': 'Sends a link to the result',
    },
    de: {
      name: 'Webhook',
      'settings.url.label': 'URL',
      'settings.url.help': 'Die Adresse (am besten https), die jede Zustellung als JSON-POST erhält.',
      'settings.headers.label': 'Header',
      'settings.headers.help': 'Zusätzliche Anfrage-Header, z. B. Authorization. Werden verschlüsselt gespeichert und nie wieder angezeigt.',
      'settings.signing_secret.label': 'Signaturgeheimnis',
      'settings.signing_secret.help': 'whsec_…-Geheimnis: Anfragen tragen webhook-id, webhook-timestamp und webhook-signature (Standard Webhooks), damit der Empfänger sie prüfen und Duplikate verwerfen kann.',
      'settings.cross_origin_redirects.label': 'Weiterleitungen an eine andere Adresse',
      'settings.cross_origin_redirects.help': 'follow: zur neuen Adresse weitergehen, ohne die zusätzlichen Header (die Signatur geht mit); refuse: die Zustellung schlägt dort fehl.',
      'capabilities.attachments': 'Sendet die Ergebnisdatei (base64 im JSON-Body)',
      'capabilities.inline_table': 'Sendet die ersten Zeilen als Tabelle',
      'capabilities.links': 'Sendet einen Link zum Ergebnis',
    },
  },
};
