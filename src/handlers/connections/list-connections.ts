import type { Handler } from '../types.js';
import { CONNECTION_VIEW, connectionView } from '../data-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';
import { callerOf, shownPage, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'connections' | 'gitops' | 'stamps' | 'answers'>;

export const listConnections = (d: Deps): Handler<'listConnections'> => async (req) => {
  const q = pageQuery(req.query);
  return stampedRead(req.headers['if-none-match'], ['listConnections', CONNECTION_VIEW, callerOf(req.ctx), q.limit, q.cursor],
    () => d.stamps.page('connection', q), async () => {
      const p = await d.connections.list(q);
      return { ...p, items: await d.gitops.withManagement('connection', p.items.map(connectionView)) };
    }, shownPage, d.answers);
};
