import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'reports'>;

/** Deletes the report with its runs and their result files; runs still going are told to stop. */
export const deleteReport = (d: Deps): Handler<'deleteReport'> => async (req) => {
  await d.reports.delete(req.params.reportId);
  return { status: 204, body: undefined };
};
