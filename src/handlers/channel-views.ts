/** Channels, deliveries and previews on the wire (schemas Channel, Delivery, DeliveryPreview, ChannelTestResult). */
import type { components } from '../generated/openapi.js';
import type { ChannelRecord, DeliveryRecord } from '../domain/channels/model.js';
import type { ChannelTestResult } from '../domain/channels/channels-service.js';
import { deliverySettingsView } from '../domain/deliveries/deliveries-service.js';

type Channel = components['schemas']['Channel'];
type Delivery = components['schemas']['Delivery'];
type TestResult = components['schemas']['ChannelTestResult'];

/** The revision of the channel's view: part of its ETags (see CONNECTION_VIEW). */
export const CHANNEL_VIEW = 'channel-1';

/**
 * The installed channel plugins and their versions, part of a channel's ETags: which settings read
 * as {configured: true} is the plugin's to say, so another plugin version (another process of a
 * fleet in a rolling upgrade) never answers 304 to a tag made by this one. Made once per registry.
 */
const pluginRevisions = new WeakMap<object, string>();
export function channelPluginsRevision(plugins: { list(): ReadonlyArray<{ id: string; version: string; kind: string }> }): string {
  let revision = pluginRevisions.get(plugins);
  if (revision === undefined) {
    revision = plugins.list().filter((p) => p.kind === 'channel').map((p) => `${p.id}@${p.version}`).sort().join(',');
    pluginRevisions.set(plugins, revision);
  }
  return revision;
}

export function channelView(c: ChannelRecord, settings: Record<string, unknown>): Channel {
  return {
    id: c.id, key: c.key, name: c.name, type: c.type, settings, health: c.health,
    last_error: c.lastError ? { code: c.lastError.code, message: c.lastError.message, at: c.lastError.at.toISOString() } : null,
    last_attempt_at: c.lastAttemptAt ? c.lastAttemptAt.toISOString() : null,
    created_at: c.createdAt.toISOString(), updated_at: c.updatedAt.toISOString(), version: c.version,
  };
}

export function deliveryView(d: DeliveryRecord): Delivery {
  return {
    id: d.id, report_id: d.reportId, channel_id: d.channelId, channel_type: d.channelType, position: d.position,
    settings: deliverySettingsView(d.settings) as Delivery['settings'], created_at: d.createdAt.toISOString(), updated_at: d.updatedAt.toISOString(), version: d.version,
  };
}

export function testResultView(r: ChannelTestResult): TestResult {
  return { status: 'sent', status_code: r.statusCode, peer_message_id: r.peerMessageId, detail: r.detail, elapsed_ms: r.elapsedMs, sent_to: r.sentTo };
}
