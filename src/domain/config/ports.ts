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
import type { ConfigKind, FieldChange } from './model.js';

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
  /** One resource's mark, if it has one. */
  markOf(kind: ConfigKind, id: string): Promise<ManagedMark | undefined>;
  /** The marks of these resources (a page of a list), by id; those without one are absent. */
  marksOf(kind: ConfigKind, ids: string[]): Promise<Map<string, ManagedMark>>;
  /** Detaches (a user and a time) or attaches (null) a marked resource. */
  setDetached(kind: ConfigKind, id: string, detached: { at: Date; by: string | null } | null): Promise<void>;
  /** The key of a resource, if it exists. */
  keyOf(kind: ConfigKind, id: string): Promise<string | undefined>;
  gitops: GitopsStateStore;
}

/** Where a secret written as `${env:NAME}` or `${file:/path}` is read (the applying process's environment and files). */
export interface SecretSources {
  /** The folders `${file:…}` may read from (/run/secrets, where containers mount secrets). */
  fileDirs: readonly string[];
  env(name: string): string | undefined;
  file(path: string): Promise<string | undefined>;
}

/** One problem of a failed reconcile of the configuration directory, with its file. */
export interface GitopsError {
  path: string | null;
  field: string | null;
  line: number | null;
  message: string;
}

/** What a detached resource's stored state lacks of the directory's copy. */
export interface GitopsDrift {
  kind: ConfigKind;
  name: string;
  id: string;
  diff: FieldChange[];
}

/**
 * The reconciler's state, one row in the store (every API process answers the same): the last
 * reconcile and its outcome, the hash of the files it applied last, and a generation that detach
 * and attach move (so the next tick reconciles even when the files did not change).
 */
export interface GitopsState {
  directory: string | null;
  lastReconcileAt: Date | null;
  result: 'applied' | 'unchanged' | 'failed' | null;
  errors: GitopsError[];
  drift: GitopsDrift[];
  appliedHash: string | null;
  appliedGeneration: number;
  generation: number;
}

export interface GitopsStateStore {
  read(): Promise<GitopsState>;
  /** Records a reconcile (the row is made on the first). */
  save(state: Omit<GitopsState, 'generation'>): Promise<void>;
  /** A detach or an attach happened: the next tick reconciles. */
  bump(): Promise<void>;
}
