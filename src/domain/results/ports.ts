/** The ports of result files: what the store knows of them (implemented by src/infra/db/stores/storage-repo.ts). */
import type { RetentionStore } from './retention.js';

/** The stored result files' count, bytes and oldest, as the shared store knows them. */
export interface StorageUsage {
  bytes: number;
  files: number;
  oldest: Date | null;
}

export interface StorageRepo extends RetentionStore {
  usage(): Promise<StorageUsage>;
}
