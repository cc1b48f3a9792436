/**
 * The connections feature's server state (contract tag `connections`): one hook per query or
 * mutation, keys from api/keys.ts, every mutation setting or invalidating what it changed. The
 * queries feature reads the same cache entries (all connections, a connection's schema).
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { useI18n } from '../../i18n';

export type Connection = Schemas['Connection'];
export type CreateConnection = Schemas['CreateConnection'];
export type UpdateConnection = Schemas['UpdateConnection'];
export type TestConnectionSettings = Schemas['TestConnectionSettings'];
export type ConnectionSchema = Schemas['ConnectionSchema'];
export type Plugin = Schemas['Plugin'];

const PAGE = 50;

/** Connections ordered by name, page by page ("Load more"). */
export function useConnectionList() {
  return useInfiniteQuery({
    queryKey: keys.connections.list({ limit: PAGE }),
    queryFn: ({ pageParam }) => api.call('listConnections', { query: { limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) } }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export function useConnection(id: string) {
  return useQuery({
    queryKey: keys.connections.one(id),
    queryFn: () => api.call('getConnection', { path: { connectionId: id } }),
  });
}

const pluginsQuery = {
  queryKey: keys.plugins.all,
  queryFn: async () => (await api.call('listPlugins')).items,
  staleTime: Infinity,
};

/** The installed plugins (GET /plugins); the same cache entry the reports feature reads. */
export function usePlugins() {
  return useQuery(pluginsQuery);
}

/** The connector plugins only: the types a connection may have. */
export function useConnectors() {
  return useQuery({ ...pluginsQuery, select: (plugins: Plugin[]) => plugins.filter((p) => p.kind === 'connector') });
}

/** A connector's name in the user's language (its plugin's translation), else its id. */
export function useConnectorName(): (type: string) => string {
  const plugins = usePlugins();
  const { language } = useI18n();
  return (type) => {
    const tr = plugins.data?.find((p) => p.id === type)?.translations;
    return tr?.[language]?.name ?? tr?.en?.name ?? type;
  };
}

/** After a change of one connection: its cache entry set, and the lists refetched. */
function useConnectionChanged() {
  const client = useQueryClient();
  return (connection: Connection) => {
    client.setQueryData(keys.connections.one(connection.id), connection);
    void client.invalidateQueries({ queryKey: keys.connections.lists() });
  };
}

export function useCreateConnection() {
  const changed = useConnectionChanged();
  return useMutation({
    mutationFn: (body: CreateConnection) => api.call('createConnection', { body }),
    onSuccess: changed,
  });
}

export function useUpdateConnection(id: string) {
  const changed = useConnectionChanged();
  return useMutation({
    mutationFn: (body: UpdateConnection) => api.call('updateConnection', { path: { connectionId: id }, body }),
    onSuccess: changed,
  });
}

export function useDeleteConnection(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('deleteConnection', { path: { connectionId: id } }),
    onSuccess: () => {
      client.removeQueries({ queryKey: keys.connections.one(id) });
      void client.invalidateQueries({ queryKey: keys.connections.lists() });
    },
  });
}

/** Settings not saved (a new connection, or an edit with connection_id): the database answers or not. */
export function useTestSettings() {
  return useMutation({
    mutationFn: (body: TestConnectionSettings) => api.call('testConnectionSettings', { body }),
  });
}

/** The saved connection, as it is stored. */
export function useTestConnection(id: string) {
  return useMutation({
    mutationFn: () => api.call('testConnection', { path: { connectionId: id } }),
  });
}

/** The cached schema; the queries feature's editor completes from the same entry. */
export function useConnectionSchema(id: string) {
  return useQuery({
    queryKey: keys.connections.part(id, 'schema'),
    queryFn: () => api.call('getConnectionSchema', { path: { connectionId: id } }),
  });
}

export function useRefreshConnectionSchema(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('refreshConnectionSchema', { path: { connectionId: id } }),
    onSuccess: (schema) => {
      client.setQueryData(keys.connections.part(id, 'schema'), schema);
      // schema_refreshed_at of the connection moved on.
      void client.invalidateQueries({ queryKey: keys.connections.one(id), exact: true });
      void client.invalidateQueries({ queryKey: keys.connections.lists() });
    },
  });
}
