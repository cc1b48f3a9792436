import type { Handler } from '../types.js';
import { QUERY_VIEW, queryView } from '../data-views.js';
import type { ApiServices } from '../services.js';
import { callerOf, shownOne, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'queries' | 'gitops' | 'stamps' | 'answers'>;

export const getQuery = (d: Deps): Handler<'getQuery'> => async (req) => {
  const id = req.params.queryId;
  return stampedRead(req.headers['if-none-match'], ['getQuery', QUERY_VIEW, callerOf(req.ctx), id],
    () => d.stamps.one('query', id), async () => {
      const q = await d.queries.get(id);
      return { ...queryView(q), ...(await d.gitops.managementOf('query', q.id)) };
    }, shownOne, d.answers);
};
