import type { Handler } from '../types.js';
import { listingView, REPORT_VIEW } from '../report-views.js';
import type { ApiServices } from '../services.js';
import { callerOf, entityTag, versionedRead } from '../entity-tags.js';

type Deps = Pick<ApiServices, 'reports' | 'answers'>;

/** As the list: the report's versions first when they can spare the read; no such report: the read answers 404. */
export const getReport = (d: Deps): Handler<'getReport'> => async (req) => {
  const id = req.params.reportId;
  const tagOf = (versions: string) => entityTag(['getReport', REPORT_VIEW, callerOf(req.ctx), id, versions]);
  return versionedRead(req.headers['if-none-match'], tagOf, () => d.reports.oneVersions(id), async () => {
    const { listing, versions } = await d.reports.one(id);
    return { body: listingView(listing), versions };
  }, d.answers);
};
