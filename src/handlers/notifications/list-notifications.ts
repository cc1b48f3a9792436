import type { Handler } from '../types.js';
import { principalOf } from '../identity-views.js';
import { notificationView } from '../notification-views.js';
import { pageQuery } from '../request-helpers.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'notifications'>;

/** GET /notifications: the caller's own (an API key's owner's), newest first, with the unread count. */
export const listNotifications = (d: Deps): Handler<'listNotifications'> => async (req) => {
  const p = await d.notifications.list(principalOf(req.ctx).user.id, { unread: req.query.unread }, pageQuery(req.query));
  return {
    status: 200,
    body: { items: p.items.map(notificationView), unread_count: p.unreadCount, ...(p.next_cursor ? { next_cursor: p.next_cursor } : {}) },
  };
};
