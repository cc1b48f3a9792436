/** The signed-in user (GET /me) and the setup state, shared by the shell and every page. */
import { useQuery } from '@tanstack/react-query';
import { api, isUnauthenticated } from './client';
import { keys } from './keys';

/** Set (sessionStorage) when a session ended under an open page; the sign-in page says so once. */
export const SESSION_ENDED = 'herald.sessionEnded';

export type Role = 'viewer' | 'editor' | 'admin';
const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

/** Whether `role` is at least `min` (the API still decides; this only hides what cannot work). */
export const atLeast = (role: Role | undefined, min: Role): boolean => role !== undefined && RANK[role] >= RANK[min];

export function useMe() {
  return useQuery({
    queryKey: keys.me,
    queryFn: async () => {
      try {
        return await api.call('getMe');
      } catch (error) {
        if (isUnauthenticated(error)) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

export function useSetupStatus() {
  return useQuery({ queryKey: keys.setup, queryFn: () => api.call('getSetupStatus'), staleTime: Infinity });
}

/** The signed-in user; only inside the signed-in part of the app (RequireSession). */
export function useCurrentUser() {
  const { data } = useMe();
  if (!data) throw new Error('useCurrentUser outside a session');
  return data;
}

export function useCan(min: Role): boolean {
  const { data } = useMe();
  return atLeast(data?.role, min);
}
