import type { Handler } from '../types.js';
import { pageQuery } from '../request-helpers.js';
import { RUN_VIEW, runSummaryView } from '../run-views.js';
import type { ApiServices } from '../services.js';
import { callerOf, shownPage, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'runs' | 'stamps' | 'answers'>;

/** GET /runs: newest first, filtered by status, report and trigger. */
export const listRuns = (d: Deps): Handler<'listRuns'> => async (req) => {
  const q = pageQuery(req.query);
  const filter = { status: req.query.status, reportId: req.query.report_id, trigger: req.query.trigger };
  return stampedRead(req.headers['if-none-match'],
    ['listRuns', RUN_VIEW, callerOf(req.ctx), q.limit, q.cursor, filter.status, filter.reportId, filter.trigger],
    () => d.stamps.runs(filter, q), async () => {
      const page = await d.runs.list(filter, q);
      return { items: page.items.map(runSummaryView), ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) };
    }, shownPage, d.answers);
};
