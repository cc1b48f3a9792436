import type { Handler } from '../types.js';
import { QUERY_VIEW, queryView } from '../data-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';
import { callerOf, shownPage, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'queries' | 'gitops' | 'stamps' | 'answers'>;

export const listQueries = (d: Deps): Handler<'listQueries'> => async (req) => {
  const q = pageQuery(req.query);
  return stampedRead(req.headers['if-none-match'], ['listQueries', QUERY_VIEW, callerOf(req.ctx), q.limit, q.cursor],
    () => d.stamps.page('query', q), async () => {
      const p = await d.queries.list(q);
      return { ...p, items: await d.gitops.withManagement('query', p.items.map(queryView)) };
    }, shownPage, d.answers);
};
