import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'queries'>;

export const deleteQuery = (d: Deps): Handler<'deleteQuery'> => async (req) => {
  await d.queries.delete(req.params.queryId);
  return { status: 204, body: undefined };
};
