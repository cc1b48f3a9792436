import type { PluginManifest } from '../../domain/plugins/plugin.js';

export const slackManifest: PluginManifest & { kind: 'channel' } = {
  id: 'slack',
  version: '1.0.0',
  kind: 'channel',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['webhook_url'],
    properties: {
      webhook_url: { type: 'string', format: 'uri', maxLength: 2048, writeOnly: true, 'x-secret': true, description: 'Incoming webhook URL (https://hooks.slack.com/services/…)' },
      bot_token: { type: 'string', pattern: '^xox[a-z]-', maxLength: 512, writeOnly: true, 'x-secret': true, description: 'Bot token (xoxb-…) with files:write, for uploading result files' },
      channel: { type: 'string', minLength: 1, maxLength: 80, description: 'Channel id (C…) files are uploaded to; needed with bot_token' },
      api_base_url: { type: 'string', format: 'uri', maxLength: 2048, default: 'https://slack.com/api', description: 'Slack Web API address (for Slack-compatible servers and tests)' },
    },
  },
  capabilities: ['inline_table', 'links', 'attachments'],
  translations: {
    en: {
      name: 'Slack',
      'settings.webhook_url.label': 'Incoming webhook URL',
      'settings.webhook_url.help': 'From your Slack app\'s Incoming Webhooks page. It is a secret: stored encrypted and never shown again.',
      'settings.bot_token.label': 'Bot token',
      'settings.bot_token.help': 'Optional xoxb-… token with files:write, to upload result files. Stored encrypted.',
      'settings.channel.label': 'Channel id',
      'settings.channel.help': 'The channel (C…) files are uploaded to; needed with a bot token.',
      'settings.api_base_url.label': 'Web API address',
      'settings.api_base_url.help': 'Leave as is for Slack; for Slack-compatible servers and tests.',
      'capabilities.inline_table': 'Shows the first rows as a table',
      'capabilities.links': 'Includes a link to the result',
      'capabilities.attachments': 'Uploads the result file (with a bot token)',
    },
    de: {
      name: 'Slack',
      'settings.webhook_url.label': 'Incoming-Webhook-URL',
      'settings.webhook_url.help': 'Von der Seite „Incoming Webhooks“ Ihrer Slack-App. Sie ist geheim: wird verschlüsselt gespeichert und nie wieder angezeigt.',
      'settings.bot_token.label': 'Bot-Token',
      'settings.bot_token.help': 'Optionales xoxb-…-Token mit files:write, um Ergebnisdateien hochzuladen. Wird verschlüsselt gespeichert.',
      'settings.channel.label': 'Kanal-ID',
      'settings.channel.help': 'Der Kanal (C…), in den Dateien hochgeladen werden; mit einem Bot-Token nötig.',
      'settings.api_base_url.label': 'Web-API-Adresse',
      'settings.api_base_url.help': 'Für Slack unverändert lassen; für Slack-kompatible Server und Tests.',
      'capabilities.inline_table': 'Zeigt die ersten Zeilen als Tabelle',
      'capabilities.links': 'Enthält einen Link zum Ergebnis',
      'capabilities.attachments': 'Lädt die Ergebnisdatei hoch (mit Bot-Token)',
    },
  },
};
