/** What the queries domain knows of its records (stored by src/infra/db/stores/queries-repo.ts). */
import type { QueryParameter } from './parameters.js';

export interface QueryRecord {
  id: string;
  /** Unique among queries (core/slug.ts). */
  key: string;
  name: string;
  description: string | null;
  connectionId: string;
  sql: string;
  parameters: QueryParameter[];
  currentVersion: number;
  createdBy: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface QueryVersionRecord {
  queryId: string;
  number: number;
  sql: string;
  parameters: QueryParameter[];
  connectionId: string;
  restoredFrom: number | null;
  createdBy: string | null;
  createdAt: Date;
}

export type QueryChanges = Partial<Pick<QueryRecord, 'name' | 'key' | 'description' | 'connectionId' | 'sql' | 'parameters' | 'currentVersion'>>;
