import type { Handler } from '../types.js';
import { pageQuery } from '../request-helpers.js';
import { runSummaryView } from '../run-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'runs'>;

/** GET /runs: newest first, filtered by status, report and trigger. */
export const listRuns = (d: Deps): Handler<'listRuns'> => async (req) => {
  const page = await d.runs.list({ status: req.query.status, reportId: req.query.report_id, trigger: req.query.trigger }, pageQuery(req.query));
  return { status: 200, body: { items: page.items.map(runSummaryView), ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) } };
};
