/**
 * The reports feature's server state: one hook per query or mutation, keys from api/keys.ts, and
 * every mutation invalidating what it changed (live events invalidate the rest).
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { useI18n } from '../../i18n';

export type Report = Schemas['Report'];
export type Delivery = Schemas['Delivery'];
export type DeliverySettings = Schemas['DeliverySettings'];
export type Channel = Schemas['Channel'];
export type Plugin = Schemas['Plugin'];
export type Query = Schemas['Query'];
export type CreateReport = Schemas['CreateReport'];
export type UpdateReport = Schemas['UpdateReport'];

const PAGE = 50;

export function useReportList(filters: { paused?: boolean | undefined }) {
  return useInfiniteQuery({
    queryKey: keys.reports.list(filters),
    queryFn: ({ pageParam }) => api.call('listReports', {
      query: { limit: PAGE, ...(filters.paused === undefined ? {} : { paused: filters.paused }), ...(pageParam ? { cursor: pageParam } : {}) },
    }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export function useReport(id: string | undefined) {
  return useQuery({
    queryKey: keys.reports.one(id ?? ''),
    queryFn: () => api.call('getReport', { path: { reportId: id! } }),
    enabled: id !== undefined,
  });
}

/** Every query (for the picker), following the cursor. */
export function useAllQueries() {
  return useQuery({
    queryKey: keys.queries.list({ all: true }),
    queryFn: async () => {
      const out: Query[] = [];
      for await (const q of api.paginate('listQueries', { query: { limit: 200 } })) out.push(q);
      return out.sort((a, b) => a.name.localeCompare(b.name));
    },
    staleTime: 30_000,
  });
}

/**
 * The parameters a report fills in: of the pinned query version when `version` is given, else of
 * the query's current version. The query and the version sit in the cache as the queries feature
 * keeps them (whole), so both features share them.
 */
/** The columns of the report's last run with a result (for the condition's column), or none yet. */
export function useLastRunColumns(runId: string | undefined): string[] {
  const run = useQuery({
    queryKey: keys.runs.one(runId ?? ''),
    queryFn: () => api.call('getRun', { path: { runId: runId! } }),
    enabled: Boolean(runId),
  });
  return (run.data?.columns ?? []).map((c) => c.name);
}

export function useQueryParameters(queryId: string | undefined, version: number | null | undefined) {
  const current = useQuery({
    queryKey: keys.queries.one(queryId ?? ''),
    queryFn: () => api.call('getQuery', { path: { queryId: queryId! } }),
    enabled: Boolean(queryId) && !version,
  });
  const pinned = useQuery({
    queryKey: keys.queries.part(queryId ?? '', 'version', { number: version ?? 0 }),
    queryFn: () => api.call('getQueryVersion', { path: { queryId: queryId!, number: version! } }),
    enabled: Boolean(queryId) && Boolean(version),
  });
  return version ? pinned : current;
}

export function useChannels() {
  return useQuery({
    queryKey: keys.channels.list({ all: true }),
    queryFn: async () => {
      const out: Channel[] = [];
      for await (const c of api.paginate('listChannels', { query: { limit: 200 } })) out.push(c);
      return out;
    },
    staleTime: 30_000,
  });
}

export function usePlugins() {
  return useQuery({
    queryKey: keys.plugins.all,
    queryFn: async () => (await api.call('listPlugins')).items,
    staleTime: Infinity,
  });
}

/** A channel type's name in the user's language (its plugin's translation), else its id. */
export function useChannelTypeName(): (type: string) => string {
  const plugins = usePlugins();
  const { language } = useI18n();
  return (type) => {
    const tr = plugins.data?.find((p) => p.id === type)?.translations;
    return tr?.[language]?.name ?? tr?.en?.name ?? type;
  };
}

export function useDeliveries(reportId: string) {
  return useQuery({
    queryKey: keys.reports.part(reportId, 'deliveries'),
    queryFn: async () => (await api.call('listDeliveries', { path: { reportId } })).items,
  });
}

/** After a change of one report: its cache entry set, and the lists refetched. */
function useReportChanged() {
  const client = useQueryClient();
  return (report: Report) => {
    client.setQueryData(keys.reports.one(report.id), report);
    void client.invalidateQueries({ queryKey: keys.reports.lists() });
  };
}

export function useCreateReport() {
  const changed = useReportChanged();
  return useMutation({
    mutationFn: (body: CreateReport) => api.call('createReport', { body }),
    onSuccess: changed,
  });
}

export function useUpdateReport(id: string) {
  const changed = useReportChanged();
  return useMutation({
    mutationFn: (body: UpdateReport) => api.call('updateReport', { path: { reportId: id }, body }),
    onSuccess: changed,
  });
}

export function usePauseReport(id: string) {
  const changed = useReportChanged();
  return useMutation({
    mutationFn: (pause: boolean) => api.call(pause ? 'pauseReport' : 'resumeReport', { path: { reportId: id } }),
    onSuccess: changed,
  });
}

export function useDeleteReport(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('deleteReport', { path: { reportId: id } }),
    onSuccess: () => {
      client.removeQueries({ queryKey: keys.reports.one(id) });
      void client.invalidateQueries({ queryKey: keys.reports.lists() });
      void client.invalidateQueries({ queryKey: keys.runs.all });
    },
  });
}

/** A manual run (deliver or not), with an Idempotency-Key so a retried request makes one run. */
export function useRunReport(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (deliver: boolean) => api.call('runReport', {
      path: { reportId: id }, header: { 'Idempotency-Key': crypto.randomUUID() }, body: { deliver },
    }),
    onSuccess: () => { void client.invalidateQueries({ queryKey: keys.runs.lists() }); },
  });
}

export function useTestDelivery(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.call('testDeliverReport', { path: { reportId: id } }),
    onSuccess: () => { void client.invalidateQueries({ queryKey: keys.runs.lists() }); },
  });
}

function useDeliveriesChanged(reportId: string) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: keys.reports.part(reportId, 'deliveries') });
}

/** Adds a delivery (no id) or replaces one (with its id and version). */
export function useSaveDelivery(reportId: string) {
  const changed = useDeliveriesChanged(reportId);
  return useMutation({
    mutationFn: (d: { id?: string | undefined; version?: number | undefined; channel_id: string; position?: number | undefined; settings: DeliverySettings }) => (
      d.id
        ? api.call('replaceDelivery', { path: { reportId, deliveryId: d.id }, body: { channel_id: d.channel_id, settings: d.settings, version: d.version!, ...(d.position ? { position: d.position } : {}) } })
        : api.call('createDelivery', { path: { reportId }, body: { channel_id: d.channel_id, settings: d.settings, ...(d.position ? { position: d.position } : {}) } })
    ),
    onSuccess: changed,
  });
}

export function useDeleteDelivery(reportId: string) {
  const changed = useDeliveriesChanged(reportId);
  return useMutation({
    mutationFn: (deliveryId: string) => api.call('deleteDelivery', { path: { reportId, deliveryId } }),
    onSuccess: changed,
  });
}

export function usePreviewDelivery(reportId: string) {
  return useMutation({
    mutationFn: (d: { delivery_id?: string; channel_id?: string; settings?: DeliverySettings }) =>
      api.call('previewDelivery', { body: { report_id: reportId, ...d } }),
  });
}
