import type { Handler } from '../types.js';
import { parametersOf, queryView } from '../data-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'queries'>;

export const updateQuery = (d: Deps): Handler<'updateQuery'> => async (req) => {
  const row = await d.queries.update(req.params.queryId, {
    version: req.body.version, name: req.body.name, key: req.body.key, description: req.body.description, connectionId: req.body.connection_id,
    sql: req.body.sql, parameters: parametersOf(req.body.parameters),
  }, actorOf(req.ctx));
  return { status: 200, body: queryView(row) };
};
