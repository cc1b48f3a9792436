/** The audit trail (contract tag `security-events`). */
import { useInfiniteQuery } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { eventsQuery, type AuditFilters } from './utils/filters';

export type SecurityEvent = Schemas['SecurityEvent'];

const PAGE = 50;

/** Security events newest first, filtered as the contract offers, page by page. */
export function useSecurityEvents(filters: AuditFilters) {
  return useInfiniteQuery({
    queryKey: keys.securityEvents.list(filters),
    queryFn: ({ pageParam }) => api.call('listSecurityEvents', {
      query: { limit: PAGE, ...eventsQuery(filters), ...(pageParam ? { cursor: pageParam } : {}) },
    }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}
