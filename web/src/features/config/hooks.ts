/**
 * One hook per query or mutation of configuration as code: the resources of each kind, one
 * resource's management (from its GET, the only place the contract gives it), export (a YAML
 * download), import (plan, apply), the configuration directory's status, detach and attach.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { HeraldError, type CallParams, type Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { fileNameFrom } from './utils/download';
import type { ConfigKind, ExportBody } from './utils/exportBody';

/** A resource of any kind as the config pages list it. */
export interface ResourceRow { kind: ConfigKind; id: string; key: string; name: string }

const TAGS = { connection: keys.connections, query: keys.queries, channel: keys.channels, report: keys.reports } as const;

export const configKeys = {
  gitops: keys.config.one('gitops'),
  resources: (kind: ConfigKind) => TAGS[kind].list({ all: true, for: 'config' }),
  one: (kind: ConfigKind, id: string) => TAGS[kind].one(id),
};

async function listAll(kind: ConfigKind): Promise<ResourceRow[]> {
  const rows: ResourceRow[] = [];
  const query = { limit: 200 };
  if (kind === 'connection') for await (const c of api.paginate('listConnections', { query })) rows.push({ kind, id: c.id, key: c.key, name: c.name });
  if (kind === 'query') for await (const q of api.paginate('listQueries', { query })) rows.push({ kind, id: q.id, key: q.key, name: q.name });
  if (kind === 'channel') for await (const c of api.paginate('listChannels', { query })) rows.push({ kind, id: c.id, key: c.key, name: c.name });
  if (kind === 'report') for await (const r of api.paginate('listReports', { query })) rows.push({ kind, id: r.id, key: r.key, name: r.title });
  return rows.sort((a, b) => a.name.localeCompare(b.name));
}

export const useResources = (kind: ConfigKind) =>
  useQuery({ queryKey: configKeys.resources(kind), queryFn: () => listAll(kind) });

type Managed = Schemas['ResourceManagement'] | undefined;

async function getOne(kind: ConfigKind, id: string): Promise<{ managed?: Managed }> {
  switch (kind) {
    case 'connection': return api.call('getConnection', { path: { connectionId: id } });
    case 'query': return api.call('getQuery', { path: { queryId: id } });
    case 'channel': return api.call('getChannel', { path: { channelId: id } });
    case 'report': return api.call('getReport', { path: { reportId: id } });
  }
}

/** Whether configuration as code manages the resource (undefined: made through the UI or the API). */
export const useManagement = (kind: ConfigKind, id: string) =>
  useQuery({
    queryKey: configKeys.one(kind, id),
    queryFn: () => getOne(kind, id),
    select: (resource: { managed?: Managed }) => resource.managed ?? null,
  });

/** POST /export, saved by the browser as the file the server names. */
export const useExport = () =>
  useMutation({
    mutationFn: async (body: ExportBody) => {
      const res = await api.fetch('/api/v1/export', {
        method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/yaml' }, body: JSON.stringify(body),
      });
      if (!res.ok) throw await HeraldError.from(res);
      const name = fileNameFrom(res.headers.get('Content-Disposition'), 'herald-export.yaml');
      const url = URL.createObjectURL(await res.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
      return name;
    },
  });

type ImportBody = NonNullable<CallParams<'importConfig'>['body']>;

export function useImport() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ImportBody) => api.call('importConfig', { body }),
    onSuccess: (result) => {
      if (!result.applied) return;
      for (const tag of Object.values(TAGS)) void client.invalidateQueries({ queryKey: tag.all });
      void client.invalidateQueries({ queryKey: keys.config.all });
    },
  });
}

export const useGitopsStatus = () =>
  useQuery({ queryKey: configKeys.gitops, queryFn: () => api.call('getGitopsStatus') });

function useManagedChange(operation: 'detachManagedResource' | 'attachManagedResource') {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ref: { kind: ConfigKind; id: string }) => api.call(operation, { body: ref }),
    onSuccess: (_r, ref) => {
      void client.invalidateQueries({ queryKey: configKeys.one(ref.kind, ref.id) });
      void client.invalidateQueries({ queryKey: keys.config.all });
    },
  });
}

export const useDetach = () => useManagedChange('detachManagedResource');
export const useAttach = () => useManagedChange('attachManagedResource');
