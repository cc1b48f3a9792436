/** The home page's one request; GET /events invalidates it on run and report changes. */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { keys } from '../../api/keys';

export function useDashboard() {
  return useQuery({ queryKey: keys.dashboard, queryFn: () => api.call('getDashboard') });
}
