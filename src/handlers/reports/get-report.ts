import type { Handler } from '../types.js';
import { reportView } from '../report-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'reports'>;

export const getReport = (d: Deps): Handler<'getReport'> => async (req) =>
  ({ status: 200, body: reportView(await d.reports.get(req.params.reportId)) });
