/**
 * The installed plugins: one explicit list. A new connector, channel or AI provider lives in its own
 * folder src/plugins/<id>/ and is added here with one line; nothing else changes.
 */
import type { AiPlugin } from '../domain/plugins/ai.js';
import type { ChannelPlugin } from '../domain/plugins/channel.js';
import type { Connector } from '../domain/plugins/connector.js';
import type { Plugin, PluginManifest, PluginRegistry } from '../domain/plugins/plugin.js';
import { mysqlConnector } from './mysql/index.js';
import { postgresConnector } from './postgres/index.js';
import { webhookChannel } from './webhook/index.js';
import { emailChannel } from './email/index.js';
import { s3Channel } from './s3/index.js';
import { slackChannel } from './slack/index.js';
import { teamsChannel } from './teams/index.js';
import { openAiPlugin } from './openai/index.js';
import { anthropicPlugin } from './anthropic/index.js';

export const builtInPlugins: readonly Plugin[] = [
  postgresConnector,
  mysqlConnector,
  webhookChannel,
  emailChannel,
  s3Channel,
  slackChannel,
  teamsChannel,
  openAiPlugin,
  anthropicPlugin,
];

function isConnector(plugin: Plugin): plugin is Connector {
  return plugin.manifest.kind === 'connector';
}

function isChannel(plugin: Plugin): plugin is ChannelPlugin {
  return plugin.manifest.kind === 'channel';
}

function isAi(plugin: Plugin): plugin is AiPlugin {
  return plugin.manifest.kind === 'ai';
}

/** The registry the composition root hands to the domain; ids must be unique. */
export function createPluginRegistry(plugins: readonly Plugin[] = builtInPlugins): PluginRegistry<Connector, ChannelPlugin, AiPlugin> {
  const byId = new Map<string, Plugin>();
  for (const plugin of plugins) {
    if (byId.has(plugin.manifest.id)) throw new Error(`Two plugins have the id ${plugin.manifest.id}`);
    byId.set(plugin.manifest.id, plugin);
  }
  const manifests: PluginManifest[] = plugins.map((p) => p.manifest);
  return {
    list: () => manifests,
    connector(id) {
      const plugin = byId.get(id);
      return plugin && isConnector(plugin) ? plugin : undefined;
    },
    channel(id) {
      const plugin = byId.get(id);
      return plugin && isChannel(plugin) ? plugin : undefined;
    },
    ai(id) {
      const plugin = byId.get(id);
      return plugin && isAi(plugin) ? plugin : undefined;
    },
  };
}
