/**
 * The installed plugins, from one explicit list: adding a plugin is its folder under
 * src/plugins/<id>/ and one line here.
 */
import type { Connector } from '../domain/plugins/connector.js';
import type { PluginRegistry } from '../domain/plugins/plugin.js';

export const builtInPlugins: Connector[] = [];

export function createPluginRegistry(plugins: Connector[]): PluginRegistry<Connector> {
  const byId = new Map(plugins.map((p) => [p.manifest.id, p]));
  return {
    list: () => plugins.map((p) => p.manifest),
    connector: (id) => byId.get(id),
  };
}
