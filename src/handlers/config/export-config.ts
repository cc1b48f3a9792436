import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'config'>;

/** The export as a YAML file: herald-export-<UTC date and time>.yaml. */
export const exportConfig = (d: Deps): Handler<'exportConfig'> => async (req) => {
  const b = req.body ?? {};
  const yaml = await d.config.export({ kinds: b.kinds, ids: b.ids, keys: b.keys, includeDependencies: b.include_dependencies });
  const stamp = new Date().toISOString().slice(0, 16).replace('T', '-').replace(':', '');
  return {
    status: 200, body: yaml, contentType: 'application/yaml; charset=utf-8',
    headers: { 'Content-Disposition': `attachment; filename="herald-export-${stamp}.yaml"` },
  };
};
