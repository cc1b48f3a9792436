import type { Handler } from '../types.js';
import { reportView } from '../report-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'reports'>;

/** Schedules again from now: the times missed while paused are not run. */
export const resumeReport = (d: Deps): Handler<'resumeReport'> => async (req) =>
  ({ status: 200, body: reportView(await d.reports.resume(req.params.reportId)) });
