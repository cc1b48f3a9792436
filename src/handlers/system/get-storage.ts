import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'storage'>;

/** GET /system/storage: result files' backend, size, count, oldest and retention. */
export const getStorage = (d: Deps): Handler<'getStorage'> => async () => {
  const s = await d.storage.report();
  return {
    status: 200,
    body: {
      backend: s.backend, location: s.location, bytes: s.bytes, files: s.files, oldest_file_at: s.oldest ? s.oldest.toISOString() : null,
      retention_days: s.retentionDays, backups: { configured: false },
    },
  };
};
