import type { Handler } from '../types.js';
import { principalOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'notifications'>;

/** POST /notifications/read-all: every unread one, or with `before` those whose cause happened before it. */
export const markAllNotificationsRead = (d: Deps): Handler<'markAllNotificationsRead'> => async (req) => {
  const before = req.body?.before;
  const done = await d.notifications.markAllRead(principalOf(req.ctx).user.id, before ? new Date(before) : undefined);
  return { status: 200, body: { marked: done.marked, unread_count: done.unreadCount } };
};
