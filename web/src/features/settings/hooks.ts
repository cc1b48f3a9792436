/**
 * One hook per query or mutation of the settings pages. A change answers the new settings, which
 * go straight into the cache (no second GET). Forms start from the query's data and send its
 * `version` back (useSettingsForm).
 */
import { useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CallParams, Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

export const settingsKeys = {
  workspace: keys.settings.one('workspace'),
  oidc: keys.settings.one('oidc'),
  ai: keys.settings.one('ai'),
  alerts: keys.settings.one('alerts'),
  storage: keys.settings.one('storage'),
};

type Body<I extends 'updateSettings' | 'replaceOidcSettings' | 'replaceAiSettings' | 'replaceAlertSettings' | 'testAiSettings'> =
  NonNullable<CallParams<I>['body']>;

/**
 * A form over one settings object: `base` is what the form started from (its version is sent),
 * `draft` what the person edits; `reset` starts again from newer data (after a save or a reload).
 */
export function useSettingsForm<T, D>(data: T, toDraft: (data: T) => D) {
  const [base, setBase] = useState(data);
  const [draft, setDraft] = useState(() => toDraft(data));
  return {
    base,
    draft,
    set: (patch: Partial<D>) => setDraft((d) => ({ ...d, ...patch })),
    reset: (next: T) => { setBase(next); setDraft(toDraft(next)); },
  };
}

export const useWorkspaceSettings = () =>
  useQuery({ queryKey: settingsKeys.workspace, queryFn: () => api.call('getSettings') });

export function useUpdateSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'updateSettings'>) => api.call('updateSettings', { body }),
    onSuccess: (saved) => client.setQueryData(settingsKeys.workspace, saved),
  });
}

export const useOidcSettings = () =>
  useQuery({ queryKey: settingsKeys.oidc, queryFn: () => api.call('getOidcSettings') });

export function useReplaceOidcSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'replaceOidcSettings'>) => api.call('replaceOidcSettings', { body }),
    onSuccess: (saved) => {
      client.setQueryData(settingsKeys.oidc, saved);
      // The sign-in page's "single sign-on" button and the password policy depend on it.
      void client.invalidateQueries({ queryKey: settingsKeys.workspace });
    },
  });
}

export const useTestOidcSettings = () =>
  useMutation({ mutationFn: (issuerUrl: string | null) => api.call('testOidcSettings', { body: issuerUrl ? { issuer_url: issuerUrl } : {} }) });

export const useAiSettings = () =>
  useQuery({ queryKey: settingsKeys.ai, queryFn: () => api.call('getAiSettings') });

export function useReplaceAiSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'replaceAiSettings'>) => api.call('replaceAiSettings', { body }),
    onSuccess: (saved) => {
      client.setQueryData(settingsKeys.ai, saved);
      void client.invalidateQueries({ queryKey: keys.ai });
    },
  });
}

export const useTestAiSettings = () =>
  useMutation({ mutationFn: (body: Body<'testAiSettings'>) => api.call('testAiSettings', { body }) });

/** The installed AI plugins (GET /plugins, kind ai), for the provider choice and their field help. */
export const useAiPlugins = () =>
  useQuery({
    queryKey: keys.plugins.list(),
    queryFn: () => api.call('listPlugins'),
    select: (list: Schemas['PluginList']) => list.items.filter((p) => p.kind === 'ai'),
    staleTime: 5 * 60_000,
  });

export const useAlertSettings = () =>
  useQuery({ queryKey: settingsKeys.alerts, queryFn: () => api.call('getAlertSettings') });

export function useReplaceAlertSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'replaceAlertSettings'>) => api.call('replaceAlertSettings', { body }),
    onSuccess: (saved) => client.setQueryData(settingsKeys.alerts, saved),
  });
}

export function useTestAlertSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('testAlertSettings'),
    // The test's sends show in the status like any alert.
    onSettled: () => client.invalidateQueries({ queryKey: settingsKeys.alerts }),
  });
}

/** Every channel (for the alert channel choice), by name. */
export const useAllChannels = () =>
  useQuery({
    queryKey: keys.channels.list({ all: true }),
    queryFn: async () => {
      const out: Schemas['Channel'][] = [];
      for await (const channel of api.paginate('listChannels', { query: { limit: 200 } })) out.push(channel);
      return out;
    },
  });

export const useStorage = () =>
  useQuery({ queryKey: settingsKeys.storage, queryFn: () => api.call('getStorage') });

export const useAbout = () =>
  useQuery({ queryKey: keys.about, queryFn: () => api.call('getAbout'), staleTime: 5 * 60_000 });

export type ProblemState = 'open' | 'resolved' | 'all';

export const useSystemProblems = (state: ProblemState) =>
  useInfiniteQuery({
    queryKey: keys.problems.list({ state }),
    queryFn: ({ pageParam }) => api.call('listSystemProblems', {
      query: { limit: 25, ...(state === 'all' ? {} : { state }), ...(pageParam ? { cursor: pageParam } : {}) },
    }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });

export const useSystemProblem = (id: string) =>
  useQuery({ queryKey: keys.problems.one(id), queryFn: () => api.call('getSystemProblem', { path: { problemId: id } }) });
