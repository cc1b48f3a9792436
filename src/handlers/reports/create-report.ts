import type { Handler } from '../types.js';
import { conditionOf, reportView } from '../report-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'reports'>;

export const createReport = (d: Deps): Handler<'createReport'> => async (req) => {
  const b = req.body;
  const row = await d.reports.create({
    title: b.title, key: b.key, description: b.description, queryId: b.query_id, queryVersion: b.query_version, parameters: b.parameters,
    schedule: b.schedule, condition: conditionOf(b.condition), paused: b.paused,
  }, actorOf(req.ctx));
  return { status: 201, body: reportView(row) };
};
