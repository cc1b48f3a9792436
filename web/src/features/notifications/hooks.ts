/**
 * The signed-in user's notifications. notification.created (GET /events) invalidates every query
 * under keys.notifications (api/events.ts), so the bell's count and the lists follow live.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

export type Notification = Schemas['Notification'];
export const NOTIFICATIONS_PAGE = 25;
/** How many the bell's dropdown shows. */
export const LATEST = 6;

/** The latest few and the unread count (the bell). */
export function useLatestNotifications() {
  return useQuery({
    queryKey: keys.notifications.list({ latest: LATEST }),
    queryFn: () => api.call('listNotifications', { query: { limit: LATEST } }),
  });
}

/** Every notification (or only unread / only read ones), page after page. */
export function useNotifications(unread: boolean | undefined) {
  return useInfiniteQuery({
    queryKey: keys.notifications.list({ unread: unread ?? 'all' }),
    queryFn: ({ pageParam }) => api.call('listNotifications', {
      query: { limit: NOTIFICATIONS_PAGE, ...(unread === undefined ? {} : { unread }), ...(pageParam ? { cursor: pageParam } : {}) },
    }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export function useMarkRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (notificationId: string) => api.call('markNotificationRead', { path: { notificationId } }),
    onSuccess: () => { void client.invalidateQueries({ queryKey: keys.notifications.all }); },
  });
}

export function useMarkAllRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('markAllNotificationsRead', { body: {} }),
    onSuccess: () => { void client.invalidateQueries({ queryKey: keys.notifications.all }); },
  });
}

/** Where a notification leads in the app, from the resource it is about. */
export function resourcePath(resource: Notification['resource']): string | undefined {
  if (!resource) return undefined;
  switch (resource.type) {
    case 'run': return `/runs/${resource.id}`;
    case 'report': return `/reports/${resource.id}`;
    case 'channel': return `/channels/${resource.id}`;
    case 'api_key': return '/api-keys';
    case 'problem': return '/';
    default: return undefined;
  }
}
