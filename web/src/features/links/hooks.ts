/** The shared links' queries and mutations, one hook each. */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

export type LinkStatus = Schemas['LinkStatus'];
export const LINK_STATUSES: readonly LinkStatus[] = ['active', 'revoked', 'expired'];
export const LINKS_PAGE = 25;

export interface LinkFilters { status?: LinkStatus; run_id?: string }

/** Links, newest first, page after page. */
export function useLinks(filters: LinkFilters) {
  return useInfiniteQuery({
    queryKey: keys.links.list(filters),
    queryFn: ({ pageParam }) => api.call('listLinks', {
      query: { ...filters, limit: LINKS_PAGE, ...(pageParam ? { cursor: pageParam } : {}) },
    }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

/** One link with its latest downloads (fetched when its log is opened). */
export function useLink(linkId: string, enabled = true) {
  return useQuery({ queryKey: keys.links.one(linkId), queryFn: () => api.call('getLink', { path: { linkId } }), enabled });
}

export function useCreateLink() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['CreateLink']) => api.call('createLink', { body }),
    onSuccess: () => { void client.invalidateQueries({ queryKey: keys.links.lists() }); },
  });
}

export function useRevokeLink() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (linkId: string) => api.call('revokeLink', { path: { linkId } }),
    onSuccess: (link) => {
      void client.invalidateQueries({ queryKey: keys.links.lists() });
      void client.invalidateQueries({ queryKey: keys.links.one(link.id) });
    },
  });
}
