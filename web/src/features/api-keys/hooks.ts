/** API keys (contract tag `api-keys`): one hook per query or mutation. */
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

export type ApiKey = Schemas['ApiKey'];

const PAGE = 50;

/** Keys newest first, of one owner or of everyone, page by page. */
export function useApiKeys(ownerId: string | undefined) {
  return useInfiniteQuery({
    queryKey: keys.apiKeys.list({ owner: ownerId ?? null }),
    queryFn: ({ pageParam }) => api.call('listApiKeys', {
      query: { limit: PAGE, ...(ownerId ? { owner_id: ownerId } : {}), ...(pageParam ? { cursor: pageParam } : {}) },
    }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export function useCreateApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['CreateApiKey']) => api.call('createApiKey', { body }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: keys.apiKeys.all });
      void client.invalidateQueries({ queryKey: keys.securityEvents.all });
    },
  });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.call('revokeApiKey', { path: { apiKeyId: id } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: keys.apiKeys.all });
      void client.invalidateQueries({ queryKey: keys.securityEvents.all });
    },
  });
}
