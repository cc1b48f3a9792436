import type { Handler } from '../types.js';
import { listingView, REPORT_VIEW } from '../report-views.js';
import type { ApiServices } from '../services.js';
import { callerOf, entityTag, noneMatchHolds } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'reports'>;

export const getReport = (d: Deps): Handler<'getReport'> => async (req) => {
  const id = req.params.reportId;
  const tagOf = (versions: string) => entityTag(['getReport', REPORT_VIEW, callerOf(req.ctx), id, versions]);
  const asked = req.headers['if-none-match'];
  if (asked) {
    const versions = await d.reports.oneVersions(id);
    // No such report: the read below answers 404.
    if (versions !== undefined) {
      const tag = tagOf(versions);
      if (noneMatchHolds(asked, tag)) return { status: 304, headers: { ETag: tag } };
    }
  }
  const { listing, versions } = await d.reports.one(id);
  return { status: 200, headers: { ETag: tagOf(versions) }, body: listingView(listing) };
};
