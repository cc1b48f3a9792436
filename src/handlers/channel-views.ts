/** Channels, deliveries and previews on the wire (schemas Channel, Delivery, DeliveryPreview, ChannelTestResult). */
import type { components } from '../generated/openapi.js';
import type { ChannelRecord, DeliveryRecord } from '../domain/channels/model.js';
import type { ChannelTestResult } from '../domain/channels/channels-service.js';
import { deliverySettingsView } from '../domain/deliveries/deliveries-service.js';

type Channel = components['schemas']['Channel'];
type Delivery = components['schemas']['Delivery'];
type TestResult = components['schemas']['ChannelTestResult'];

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
