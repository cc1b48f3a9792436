import type { Handler } from '../types.js';
import { problemView } from '../alert-views.js';
import { pageQuery } from '../request-helpers.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'operations'>;

/** GET /system/problems: open and resolved system problems, newest first. */
export const listSystemProblems = (d: Deps): Handler<'listSystemProblems'> => async (req) => {
  const page = await d.operations.listProblems({ ...pageQuery(req.query), state: req.query.state, kind: req.query.kind });
  return { status: 200, body: { items: page.items.map(problemView), ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) } };
};
