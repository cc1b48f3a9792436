import type { Handler } from '../types.js';
import { conditionOf, reportView } from '../report-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'reports'>;

export const updateReport = (d: Deps): Handler<'updateReport'> => async (req) => {
  const b = req.body;
  const row = await d.reports.update(req.params.reportId, {
    version: b.version, title: b.title, key: b.key, description: b.description, queryId: b.query_id, queryVersion: b.query_version,
    parameters: b.parameters, schedule: b.schedule, condition: conditionOf(b.condition),
  });
  return { status: 200, body: reportView(row) };
};
