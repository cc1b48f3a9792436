import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'downloads'>;

/** GET /runs/{runId}/result?format=csv|xlsx|json[&formula_safe=true]: the stored result, streamed. */
export const getRunResult = (d: Deps): Handler<'getRunResult'> => async (req) => {
  const { stream, filename, contentType } = await d.downloads.open(req.params.runId, req.query.format ?? 'csv', { formulaSafe: req.query.formula_safe ?? false });
  // One branch per declared media type, so that each answer is checked against its own.
  if (contentType === 'application/json') return { status: 200, stream, filename, contentType };
  if (contentType === 'text/csv; charset=utf-8') return { status: 200, stream, filename, contentType };
  return { status: 200, stream, filename, contentType };
};
