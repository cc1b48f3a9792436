import type { Handler } from '../types.js';
import { listingView, REPORT_VIEW } from '../report-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';
import { callerOf, entityTag, versionedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'reports' | 'answers'>;

/**
 * The page's versions first (a lean statement) when If-None-Match asks or an answer may be kept:
 * 304, or the bytes this process answered under that tag; otherwise the page with its versions in
 * one statement, tagged by them.
 */
export const listReports = (d: Deps): Handler<'listReports'> => async (req) => {
  const q = { ...pageQuery(req.query), queryId: req.query.query_id, paused: req.query.paused };
  const tagOf = (versions: string) => entityTag(['listReports', REPORT_VIEW, callerOf(req.ctx), q.limit, q.cursor, q.queryId, q.paused, versions]);
  return versionedRead(req.headers['if-none-match'], tagOf, () => d.reports.pageVersions(q), async () => {
    const { page, versions } = await d.reports.page(q);
    const items = page.items.map(listingView);
    return { body: page.next_cursor !== undefined ? { items, next_cursor: page.next_cursor } : { items }, versions };
  }, d.answers);
};
