/**
 * The channels feature's server state (contract tag `channels`): one hook per query or mutation,
 * keys from api/keys.ts, every mutation setting or invalidating what it changed. Live
 * `channel.health` events invalidate the channels (api/events.ts).
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { useI18n } from '../../i18n';

export type Channel = Schemas['Channel'];
export type Plugin = Schemas['Plugin'];
export type CreateChannel = Schemas['CreateChannel'];
export type UpdateChannel = Schemas['UpdateChannel'];
export type TestResult = Schemas['ChannelTestResult'];
export type DeliveryAttempt = Schemas['DeliveryAttempt'];
export type ChannelAttempt = Schemas['ChannelAttempt'];

const PAGE = 50;

/** Channels ordered by name, page by page ("Load more"). */
export function useChannelList() {
  return useInfiniteQuery({
    queryKey: keys.channels.list({ limit: PAGE }),
    queryFn: ({ pageParam }) => api.call('listChannels', { query: { limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) } }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export function useChannel(id: string) {
  return useQuery({
    queryKey: keys.channels.one(id),
    queryFn: () => api.call('getChannel', { path: { channelId: id } }),
  });
}

const ATTEMPTS_PAGE = 10;

/** The channel's delivery attempts, newest first, ten at a time ("Show more"). */
export function useChannelAttempts(id: string) {
  return useInfiniteQuery({
    queryKey: keys.channels.part(id, 'attempts', { limit: ATTEMPTS_PAGE }),
    queryFn: ({ pageParam }) => api.call('listChannelAttempts', {
      path: { channelId: id }, query: { limit: ATTEMPTS_PAGE, ...(pageParam ? { cursor: pageParam } : {}) },
    }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

/** The installed channel plugins (kind channel) with their settings schemas and translations. */
export function useChannelPlugins() {
  return useQuery({
    queryKey: keys.plugins.all,
    queryFn: async () => (await api.call('listPlugins')).items,
    staleTime: Infinity,
    select: (plugins) => plugins.filter((p) => p.kind === 'channel'),
  });
}

/** A channel type's name in the user's language (its plugin's translation), else its id. */
export function useChannelTypeName(): (type: string) => string {
  const plugins = useChannelPlugins();
  const { language } = useI18n();
  return (type) => {
    const tr = plugins.data?.find((p) => p.id === type)?.translations;
    return tr?.[language]?.name ?? tr?.en?.name ?? type;
  };
}

/** After a change of one channel: its cache entry set, and the lists refetched. */
function useChannelChanged() {
  const client = useQueryClient();
  return (channel: Channel) => {
    // A change's answer carries no `managed` (lists and changes omit it): keep the one loaded.
    const before = client.getQueryData<Channel>(keys.channels.one(channel.id));
    client.setQueryData(keys.channels.one(channel.id), before?.managed ? { ...channel, managed: before.managed } : channel);
    void client.invalidateQueries({ queryKey: keys.channels.lists() });
  };
}

export function useCreateChannel() {
  const changed = useChannelChanged();
  return useMutation({
    mutationFn: (body: CreateChannel) => api.call('createChannel', { body }),
    onSuccess: changed,
  });
}

export function useUpdateChannel(id: string) {
  const changed = useChannelChanged();
  return useMutation({
    mutationFn: (body: UpdateChannel) => api.call('updateChannel', { path: { channelId: id }, body }),
    onSuccess: changed,
  });
}

export function useDeleteChannel(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('deleteChannel', { path: { channelId: id } }),
    onSuccess: () => {
      client.removeQueries({ queryKey: keys.channels.one(id) });
      void client.invalidateQueries({ queryKey: keys.channels.lists() });
    },
  });
}

/** A test message with settings not saved (or a saved channel's with these laid over them). */
export function useTestChannelSettings() {
  return useMutation({
    mutationFn: (body: Schemas['TestChannelSettings']) => api.call('testChannelSettings', { body }),
  });
}

/** A test message through a saved channel, as it is stored. */
export function useTestChannel(id: string) {
  return useMutation({
    mutationFn: () => api.call('testChannel', { path: { channelId: id }, body: {} }),
  });
}

/** Resends the channel's failed attempts; answers the attempts queued. */
export function useRetryFailed(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('retryFailedChannelDeliveries', { path: { channelId: id } }),
    onSuccess: (result) => {
      void client.invalidateQueries({ queryKey: keys.channels.one(id) });
      for (const runId of new Set(result.queued.map((a) => a.run_id))) void client.invalidateQueries({ queryKey: keys.runs.one(runId) });
      void client.invalidateQueries({ queryKey: keys.runs.lists() });
    },
  });
}
