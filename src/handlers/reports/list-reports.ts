import type { Handler } from '../types.js';
import { reportView } from '../report-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'reports' | 'gitops'>;

export const listReports = (d: Deps): Handler<'listReports'> => async (req) => {
  const p = await d.reports.list({ ...pageQuery(req.query), queryId: req.query.query_id, paused: req.query.paused });
  return { status: 200, body: { ...p, items: await d.gitops.withManagement('report', p.items.map(reportView)) } };
};
