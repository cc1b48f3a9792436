/** The runs feature's queries and mutations, one hook each. */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import type { RunFilters } from './utils/filters';
import { runPollMs } from './utils/live';

/** Runs per page of the list (the contract's default is 50; smaller pages come back sooner). */
export const RUNS_PAGE = 25;

/** Runs, newest first, page after page as the list scrolls. */
export function useRuns(filters: RunFilters) {
  return useInfiniteQuery({
    queryKey: keys.runs.list(filters),
    queryFn: ({ pageParam }) => api.call('listRuns', {
      query: { ...filters, limit: RUNS_PAGE, ...(pageParam ? { cursor: pageParam } : {}) },
    }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

/**
 * One run; GET /events (api/events.ts) invalidates it whenever it changes, so the page follows it
 * live, and it is read again every few seconds while unfinished (utils/live.ts).
 */
export function useRun(runId: string) {
  return useQuery({
    queryKey: keys.runs.one(runId),
    queryFn: () => api.call('getRun', { path: { runId } }),
    refetchInterval: (query) => runPollMs(query.state.data),
  });
}

/** One report (its title on a run's page). */
export function useReport(reportId: string | undefined) {
  return useQuery({
    queryKey: keys.reports.one(reportId ?? ''),
    queryFn: () => api.call('getReport', { path: { reportId: reportId! } }),
    enabled: reportId !== undefined,
    staleTime: 60_000,
  });
}

/** Every report's title by id (the list's report column and filter). */
export function useReportTitles() {
  return useQuery({
    queryKey: keys.reports.list({ view: 'titles' }),
    queryFn: async () => {
      const titles = new Map<string, string>();
      for await (const report of api.paginate('listReports', { query: { limit: 200 } })) titles.set(report.id, report.title);
      return titles;
    },
    staleTime: 60_000,
  });
}

export function useCancelRun(runId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('cancelRun', { path: { runId } }),
    onSuccess: (run) => {
      client.setQueryData(keys.runs.one(runId), run);
      void client.invalidateQueries({ queryKey: keys.runs.lists() });
    },
  });
}

export function useRetryAttempt(runId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (attemptId: string) => api.call('retryDeliveryAttempt', { path: { runId, attemptId } }),
    onSuccess: (attempt: Schemas['DeliveryAttempt']) => {
      client.setQueryData<Schemas['Run']>(keys.runs.one(runId), (run) => run && {
        ...run, delivery_attempts: run.delivery_attempts.map((a) => (a.id === attempt.id ? attempt : a)),
      });
      void client.invalidateQueries({ queryKey: keys.runs.one(runId) });
    },
  });
}
