/**
 * One hook per query or mutation of the queries feature, over the SDK's typed client. Keys come
 * from api/keys.ts; a mutation writes what it answered into the cache and invalidates the lists.
 */
import { useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CallParams, Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

export type Query = Schemas['Query'];
export type QueryVersion = Schemas['QueryVersion'];
export type Connection = Schemas['Connection'];
export type Preview = Schemas['QueryPreview'];
export type AiProposal = Schemas['AiProposal'];

export const PAGE_SIZE = 50;

/** Queries, most recently changed first, a page at a time. */
export function useQueryList() {
  return useInfiniteQuery({
    queryKey: keys.queries.list(),
    queryFn: ({ pageParam }) => api.call('listQueries', { query: { limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) } }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor,
  });
}

export function useSavedQuery(id: string | undefined) {
  return useQuery({
    queryKey: keys.queries.one(id ?? ''),
    queryFn: () => api.call('getQuery', { path: { queryId: id! } }),
    enabled: id !== undefined,
  });
}

/** Every connection (a workspace has few): the picker and the names in lists. */
export function useConnections() {
  return useQuery({
    queryKey: keys.connections.list({ all: true }),
    queryFn: async () => {
      const all: Connection[] = [];
      for await (const c of api.paginate('listConnections', { query: { limit: 200 } })) all.push(c);
      return all;
    },
    staleTime: 60_000,
  });
}

export function useConnectionSchema(connectionId: string | null) {
  return useQuery({
    queryKey: keys.connections.part(connectionId ?? '', 'schema'),
    queryFn: () => api.call('getConnectionSchema', { path: { connectionId: connectionId! } }),
    enabled: connectionId !== null,
    staleTime: 5 * 60_000,
  });
}

export function useRefreshSchema(connectionId: string | null) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('refreshConnectionSchema', { path: { connectionId: connectionId! } }),
    onSuccess: (schema) => {
      client.setQueryData(keys.connections.part(schema.connection_id, 'schema'), schema);
      void client.invalidateQueries({ queryKey: keys.connections.lists() });
    },
  });
}

export function useCreateQuery() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CallParams<'createQuery'>['body']) => api.call('createQuery', { body }),
    onSuccess: (query) => {
      client.setQueryData(keys.queries.one(query.id), query);
      void client.invalidateQueries({ queryKey: keys.queries.lists() });
    },
  });
}

export function useUpdateQuery(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CallParams<'updateQuery'>['body']) => api.call('updateQuery', { path: { queryId: id }, body }),
    onSuccess: (query) => {
      client.setQueryData(keys.queries.one(id), query);
      void client.invalidateQueries({ queryKey: keys.queries.lists() });
      void client.invalidateQueries({ queryKey: [...keys.queries.one(id), 'versions'] });
    },
  });
}

export function useDeleteQuery(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('deleteQuery', { path: { queryId: id } }),
    onSuccess: () => {
      client.removeQueries({ queryKey: keys.queries.one(id) });
      void client.invalidateQueries({ queryKey: keys.queries.lists() });
    },
  });
}

export function usePreview() {
  return useMutation({
    mutationFn: (body: CallParams<'previewQuery'>['body']) => api.call('previewQuery', { body }),
  });
}

/** A query's versions, newest first, a page at a time. */
export function useQueryVersions(id: string) {
  return useInfiniteQuery({
    queryKey: keys.queries.part(id, 'versions'),
    queryFn: ({ pageParam }) => api.call('listQueryVersions', { path: { queryId: id }, query: { limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) } }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor,
  });
}

export function useQueryVersion(id: string, number: number | undefined) {
  return useQuery({
    queryKey: keys.queries.part(id, 'version', { number }),
    queryFn: () => api.call('getQueryVersion', { path: { queryId: id, number: number! } }),
    enabled: number !== undefined,
    staleTime: Infinity, // a version never changes
  });
}

export function useRestoreVersion(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { number: number; version: number }) => api.call('restoreQueryVersion', { path: { queryId: id }, body }),
    onSuccess: (query) => {
      client.setQueryData(keys.queries.one(id), query);
      void client.invalidateQueries({ queryKey: keys.queries.lists() });
      void client.invalidateQueries({ queryKey: [...keys.queries.one(id), 'versions'] });
    },
  });
}

/** The names of the members who made versions (everyone may see members' names). */
export function useUserNames(ids: readonly string[]): Record<string, string> {
  const distinct = [...new Set(ids)];
  const results = useQueries({
    queries: distinct.map((userId) => ({
      queryKey: keys.users.one(userId),
      queryFn: () => api.call('getUser', { path: { userId } }),
      staleTime: 5 * 60_000,
      retry: false,
    })),
  });
  const names: Record<string, string> = {};
  results.forEach((r, i) => { if (r.data) names[distinct[i]!] = r.data.name; });
  return names;
}

export function useAiStatus() {
  return useQuery({ queryKey: keys.ai, queryFn: () => api.call('getAiStatus'), staleTime: 60_000 });
}

export function useProposeQuery() {
  return useMutation({
    mutationFn: (body: { prompt: string; connection_id: string; sql?: string }) =>
      api.call('generateWithAi', { body: { kind: 'query', ...body } }),
  });
}
