import type { Handler } from '../types.js';
import { reportView } from '../report-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'reports' | 'gitops'>;

export const getReport = (d: Deps): Handler<'getReport'> => async (req) => {
  const r = await d.reports.get(req.params.reportId);
  return { status: 200, body: { ...reportView(r), ...(await d.gitops.managementOf('report', r.id)) } };
};
