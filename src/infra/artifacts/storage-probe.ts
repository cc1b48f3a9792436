/**
 * Whether the result files' storage can be written, and (on a local volume) how full it is: a
 * small file written and removed in the results folder, and statfs. A bucket is probed by the
 * result files themselves (their errors end runs failed), so it reports writable, size unknown.
 */
import { mkdir, rm, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface StorageProbeResult { writable: boolean; error: string | null; freePercent: number | null }

export function createStorageProbe(location: { backend: 'local' | 's3'; location: string }): () => Promise<StorageProbeResult> {
  return async () => {
    if (location.backend !== 'local') return { writable: true, error: null, freePercent: null };
    const dir = location.location;
    try {
      await mkdir(dir, { recursive: true });
      const probe = path.join(dir, `.probe-${process.pid}`);
      await writeFile(probe, 'ok');
      await rm(probe, { force: true });
    } catch (err) {
      return { writable: false, error: (err as NodeJS.ErrnoException).code ?? 'write failed', freePercent: null };
    }
    try {
      const s = await statfs(dir);
      return { writable: true, error: null, freePercent: s.blocks > 0 ? (Number(s.bavail) / Number(s.blocks)) * 100 : null };
    } catch {
      return { writable: true, error: null, freePercent: null };
    }
  };
}
