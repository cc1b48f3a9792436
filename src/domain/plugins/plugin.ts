/**
 * The shape every plugin shares, connectors (databases) and channels (delivery destinations)
 * alike: a manifest that describes it (GET /plugins serves it) and an implementation of the
 * domain's interface for its kind. Plugins live in src/plugins/<id>/ and are listed once in
 * src/plugins/registry.ts; a plugin never imports the store or a service.
 */

/** A JSON Schema (draft 2020-12 subset that OpenAPI 3.0 clients understand) of a plugin's settings. */
export type JsonSchema = Record<string, unknown>;

export type PluginKind = 'connector' | 'channel' | 'ai';

export interface PluginManifest {
  /** Stable id, also the `type` of connections or channels that use the plugin (e.g. "postgres"). */
  id: string;
  /** The plugin's own version (semver). */
  version: string;
  kind: PluginKind;
  /**
   * JSON Schema of the plugin's configuration. Secret fields carry `"x-secret": true`: they are
   * stored through the secret box, never returned (they read as {"configured": true}) and never
   * logged.
   */
  settingsSchema: JsonSchema;
  /** What the plugin can do, e.g. "schema_introspection", "cancel" (connectors); "attachments" (channels). */
  capabilities: string[];
  /**
   * Labels by locale (at least en and de), by key: "name" (the plugin's display name),
   * "settings.<field>.label", "settings.<field>.help", "capabilities.<capability>"; channels also
   * "delivery.<field>.label" and "delivery.<field>.help" for the fields of their deliverySchema.
   */
  translations: Record<string, Record<string, string>>;
}

/** A plugin of any kind: its manifest plus the implementation of its kind's interface. */
export interface Plugin<K extends PluginKind = PluginKind> {
  manifest: PluginManifest & { kind: K };
}

/** The installed plugins, as the composition root builds them from src/plugins/registry.ts. */
export interface PluginRegistry<Connector extends Plugin<'connector'> = Plugin<'connector'>, Channel extends Plugin<'channel'> = Plugin<'channel'>, Ai extends Plugin<'ai'> = Plugin<'ai'>> {
  list(): PluginManifest[];
  connector(id: string): Connector | undefined;
  channel(id: string): Channel | undefined;
  ai(id: string): Ai | undefined;
}
