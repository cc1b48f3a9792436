/** The members (contract tag `users`): one hook per query or mutation. */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

export type User = Schemas['User'];
export type Role = Schemas['Role'];
export const ROLES: Role[] = ['viewer', 'editor', 'admin'];

const PAGE = 50;

/** Members ordered by name, page by page ("Load more"). */
export function useUsers() {
  return useInfiniteQuery({
    queryKey: keys.users.list({ limit: PAGE }),
    queryFn: ({ pageParam }) => api.call('listUsers', { query: { limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) } }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

/**
 * Every member (all pages), for pickers and for naming the people in other lists (API keys'
 * owners, the audit trail's actors).
 */
export function useAllUsers(enabled = true) {
  return useQuery({
    queryKey: keys.users.list({ all: true }),
    queryFn: async () => {
      const all: User[] = [];
      for await (const user of api.paginate('listUsers', { query: { limit: 200 } })) all.push(user);
      return all;
    },
    enabled,
    staleTime: 60_000,
  });
}

/** A lookup of members' names by id, from useAllUsers. */
export function useUserNames(enabled = true): (id: string | null | undefined) => string | undefined {
  const users = useAllUsers(enabled);
  const byId = new Map((users.data ?? []).map((u) => [u.id, u.name]));
  return (id) => (id ? byId.get(id) : undefined);
}

export function useUser(id: string) {
  return useQuery({ queryKey: keys.users.one(id), queryFn: () => api.call('getUser', { path: { userId: id } }) });
}

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['CreateUser']) => api.call('createUser', { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.users.all }),
  });
}

export function useUpdateUser(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['UpdateUser']) => api.call('updateUser', { path: { userId: id }, body }),
    onSuccess: (user) => {
      client.setQueryData(keys.users.one(id), user);
      void client.invalidateQueries({ queryKey: keys.users.lists() });
      void client.invalidateQueries({ queryKey: keys.securityEvents.all });
    },
  });
}

export function useResetUserPassword(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('resetUserPassword', { path: { userId: id }, body: {} }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: keys.users.all });
      void client.invalidateQueries({ queryKey: keys.securityEvents.all });
    },
  });
}

export function useDisableUserTwoFactor(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('disableUserTwoFactor', { path: { userId: id } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: keys.users.all });
      void client.invalidateQueries({ queryKey: keys.securityEvents.all });
    },
  });
}
