/**
 * A channel's settings as the API sees them and as they are stored: the plugin's manifest marks
 * secret fields ("x-secret": true); those are sealed together as one JSON object through the
 * secret box (context channels.secrets:<id>) and read back as {configured: true}. A write keeps a
 * secret field when it is omitted or sent as {configured: true}, removes it on null and replaces
 * it on any other value.
 */
import { validationFailed, type FieldProblem } from '../../core/errors.js';
import type { Secrets } from '../../core/secrets.js';
import type { ChannelPlugin, OutboundHttp } from '../plugins/channel.js';
import type { SchemaCheck } from '../connections/ports.js';
import type { ChannelRecord } from './model.js';

export const secretsContext = (channelId: string) => `channels.secrets:${channelId}`;

export function secretFieldsOf(plugin: ChannelPlugin): string[] {
  const props = (plugin.manifest.settingsSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(props).filter(([, s]) => s['x-secret'] === true).map(([k]) => k);
}

/** A secret field a write keeps as stored: omitted, or the round-tripped {configured: true}. */
export const isKeep = (v: unknown) => v === undefined || (typeof v === 'object' && v !== null && !Array.isArray(v)
  && Object.keys(v).length === 1 && (v as Record<string, unknown>).configured === true);

/** The stored secrets of a channel, opened. */
export function openSecrets(channel: Pick<ChannelRecord, 'id' | 'secretsSealed'>, secrets: Secrets): Record<string, unknown> {
  if (!channel.secretsSealed) return {};
  return JSON.parse(secrets.open(channel.secretsSealed, secretsContext(channel.id))) as Record<string, unknown>;
}

/** Everything the plugin needs: plain settings with the secrets laid in. */
export function fullSettingsOf(channel: ChannelRecord, secrets: Secrets): Record<string, unknown> {
  return { ...channel.settings, ...openSecrets(channel, secrets) };
}

/** The API's view: plain settings, and {configured: true} for each stored secret. */
export function settingsView(channel: ChannelRecord, plugin: ChannelPlugin | undefined, secrets: Secrets): Record<string, unknown> {
  const out: Record<string, unknown> = { ...channel.settings };
  if (!channel.secretsSealed) return out;
  const stored = openSecrets(channel, secrets);
  const names = plugin ? secretFieldsOf(plugin) : Object.keys(stored);
  for (const name of names) if (stored[name] !== undefined && stored[name] !== null) out[name] = { configured: true };
  return out;
}

/**
 * Lays a write over stored settings (or none), applies the manifest's defaults, checks the whole
 * against the plugin's schema and its own rules, and answers it split into plain and secret parts.
 */
export function mergeSettings(
  plugin: ChannelPlugin,
  input: Record<string, unknown> | undefined,
  base: { plain: Record<string, unknown>; secret: Record<string, unknown> },
  check: SchemaCheck,
  http: Pick<OutboundHttp, 'allowsHost'>,
  replaceAll: boolean,
): { plain: Record<string, unknown>; secret: Record<string, unknown>; full: Record<string, unknown> } {
  const secretNames = new Set(secretFieldsOf(plugin));
  const plain: Record<string, unknown> = replaceAll ? {} : { ...base.plain };
  const secret: Record<string, unknown> = { ...base.secret };
  for (const [key, value] of Object.entries(input ?? {})) {
    if (secretNames.has(key)) {
      if (isKeep(value)) continue;
      if (value === null) delete secret[key];
      else secret[key] = value;
    } else if (value === null) {
      delete plain[key];
    } else {
      plain[key] = value;
    }
  }
  if (replaceAll) {
    // Unsaved or new settings: a {configured: true} of a secret that is not stored means nothing.
    for (const name of secretNames) if (input?.[name] === undefined && base.secret[name] === undefined) delete secret[name];
  }
  const props = (plugin.manifest.settingsSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [key, schema] of Object.entries(props)) {
    if (plain[key] === undefined && !secretNames.has(key) && schema.default !== undefined) plain[key] = schema.default;
  }
  const full = { ...plain, ...secret };
  const problems: FieldProblem[] = check(plugin.manifest.settingsSchema, full, 'settings');
  if (problems.length > 0) throw validationFailed(problems.map((p) => (secretNames.has(p.field.split('.')[1] ?? '') ? { ...p, message: p.message ?? 'is not valid' } : p)));
  plugin.validate(full, http);
  return { plain, secret, full };
}
