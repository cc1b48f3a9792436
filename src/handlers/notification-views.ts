/** Notifications on the wire (schemas Notification, NotificationPage). */
import type { components } from '../generated/openapi.js';
import type { NotificationRecord } from '../domain/notifications/model.js';

export function notificationView(n: NotificationRecord): components['schemas']['Notification'] {
  return {
    id: n.id, kind: n.kind, severity: n.severity, title: n.title, body: n.body, resource: n.resource, count: n.count,
    read_at: n.readAt ? n.readAt.toISOString() : null, created_at: n.createdAt.toISOString(), updated_at: n.updatedAt.toISOString(),
  };
}
