import type { Handler } from '../types.js';
import { reportView } from '../report-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'reports'>;

export const pauseReport = (d: Deps): Handler<'pauseReport'> => async (req) =>
  ({ status: 200, body: reportView(await d.reports.pause(req.params.reportId)) });
