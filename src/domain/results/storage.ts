/**
 * Where result files are kept and how much of them there is (GET /system/storage): the backend
 * and its location as configured, the figures from the shared store (so every instance answers
 * the same), and the retention.
 */
import type { StorageRepo, StorageUsage } from './ports.js';

export interface StorageReport extends StorageUsage {
  backend: 'local' | 's3';
  location: string;
  retentionDays: number;
}

export function createStorageService(deps: {
  store: Pick<StorageRepo, 'usage'>;
  where: { backend: 'local' | 's3'; location: string };
  retentionDays: number;
}) {
  return {
    async report(): Promise<StorageReport> {
      return { ...(await deps.store.usage()), ...deps.where, retentionDays: deps.retentionDays };
    },
  };
}

export type StorageService = ReturnType<typeof createStorageService>;
