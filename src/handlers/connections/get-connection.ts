import type { Handler } from '../types.js';
import { CONNECTION_VIEW, connectionView } from '../data-views.js';
import type { ApiServices } from '../services.js';
import { callerOf, shownOne, stampedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'connections' | 'gitops' | 'stamps' | 'answers'>;

export const getConnection = (d: Deps): Handler<'getConnection'> => async (req) => {
  const id = req.params.connectionId;
  return stampedRead(req.headers['if-none-match'], ['getConnection', CONNECTION_VIEW, callerOf(req.ctx), id],
    () => d.stamps.one('connection', id), async () => {
      const c = await d.connections.get(id);
      return { ...connectionView(c), ...(await d.gitops.managementOf('connection', c.id)) };
    }, shownOne, d.answers);
};
