/**
 * The config feature's ports: the state it reads (every exportable resource with its key, in
 * one read per table), the marks of what imports and the configuration directory manage, and
 * where `${env:…}` and `${file:…}` secrets come from. Changes go through the resources' own
 * services (their rules, secrets, audit and events), inside one unit of work.
 */
import type { ConnectionRecord } from '../connections/model.js';
import type { QueryRecord } from '../queries/model.js';
import type { ChannelRecord, DeliveryRecord } from '../channels/model.js';
import type { ReportRecord } from '../reports/model.js';
import type { ConfigKind } from './model.js';

/** Who manages a resource: an import (POST /import, `herald config apply`) or the configuration directory. */
export type ManagedBy = 'import' | 'gitops';

export interface ManagedMark {
  kind: ConfigKind;
  id: string;
  by: ManagedBy;
  /** The file that defines it (the configuration directory), when there is one. */
  path: string | null;
  detachedAt: Date | null;
  detachedBy: string | null;
}

/** Every exportable resource, as stored (each with its key). */
export interface ConfigState {
  connections: Array<ConnectionRecord & { key: string }>;
  queries: Array<QueryRecord & { key: string }>;
  channels: Array<ChannelRecord & { key: string }>;
  reports: Array<ReportRecord & { key: string }>;
  /** Every report's deliveries, in position order. */
  deliveries: DeliveryRecord[];
  managed: ManagedMark[];
}

export interface ConfigStore {
  state(): Promise<ConfigState>;
  /** Marks resources as managed (an existing mark is replaced). */
  mark(marks: Array<Pick<ManagedMark, 'kind' | 'id' | 'by' | 'path'>>): Promise<void>;
  /** Drops the marks of resources that are gone. */
  unmark(kind: ConfigKind, id: string): Promise<void>;
}

/** Where a secret written as `${env:NAME}` or `${file:/path}` is read (the applying process's environment and files). */
export interface SecretSources {
  /** The folders `${file:…}` may read from (/run/secrets, where containers mount secrets). */
  fileDirs: readonly string[];
  env(name: string): string | undefined;
  file(path: string): Promise<string | undefined>;
}
