import type { Handler } from '../types.js';
import { listingView, REPORT_VIEW } from '../report-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';
import { callerOf, entityTag, noneMatchHolds } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'reports'>;

/**
 * One statement either way: with If-None-Match, the page's versions only (304 when they are the
 * ones the tag was made from); otherwise, or when they changed, the page with its versions.
 */
export const listReports = (d: Deps): Handler<'listReports'> => async (req) => {
  const q = { ...pageQuery(req.query), queryId: req.query.query_id, paused: req.query.paused };
  const tagOf = (versions: string) => entityTag(['listReports', REPORT_VIEW, callerOf(req.ctx), q.limit, q.cursor, q.queryId, q.paused, versions]);
  const asked = req.headers['if-none-match'];
  if (asked) {
    const tag = tagOf(await d.reports.pageVersions(q));
    if (noneMatchHolds(asked, tag)) return { status: 304, headers: { ETag: tag } };
  }
  const { page, versions } = await d.reports.page(q);
  const items = page.items.map(listingView);
  return { status: 200, headers: { ETag: tagOf(versions) }, body: page.next_cursor !== undefined ? { items, next_cursor: page.next_cursor } : { items } };
};
