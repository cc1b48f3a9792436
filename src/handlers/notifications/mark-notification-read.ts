import type { Handler } from '../types.js';
import { principalOf } from '../identity-views.js';
import { notificationView } from '../notification-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'notifications'>;

/** POST /notifications/{id}/read: another user's id is not found. */
export const markNotificationRead = (d: Deps): Handler<'markNotificationRead'> => async (req) =>
  ({ status: 200, body: notificationView(await d.notifications.markRead(principalOf(req.ctx).user.id, req.params.notificationId)) });
