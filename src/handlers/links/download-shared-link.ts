import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'links'>;

/** GET /r/{token}[?formula_safe=true]: public; streams the file of an active link and logs the download. */
export const downloadSharedLink = (d: Deps): Handler<'downloadSharedLink'> => async (req) => {
  const { stream, filename, contentType } = await d.links.download(req.params.token, { ip: req.ctx.ip, userAgent: req.ctx.userAgent },
    { formulaSafe: req.query.formula_safe ?? false });
  const headers = { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' };
  if (contentType === 'application/json') return { status: 200, stream, filename, contentType, headers };
  if (contentType === 'text/csv; charset=utf-8') return { status: 200, stream, filename, contentType, headers };
  return { status: 200, stream, filename, contentType, headers };
};
