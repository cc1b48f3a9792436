/** Shared links on the wire (schemas Link, LinkDetail, CreatedLink). */
import type { components } from '../generated/openapi.js';
import type { LinkDownload, LinkRecord, LinkStatus } from '../domain/links/model.js';

type Link = components['schemas']['Link'];
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function linkView(l: LinkRecord & { status: LinkStatus }): Link {
  return {
    id: l.id, status: l.status, run_id: l.runId, report_id: l.reportId, report_title: l.reportTitle, format: l.format,
    created_by: l.createdBy, created_at: l.createdAt.toISOString(), expires_at: l.expiresAt.toISOString(), revoked_at: iso(l.revokedAt),
    download_count: l.downloadCount, last_downloaded_at: iso(l.lastDownloadedAt),
  };
}

export const downloadView = (d: LinkDownload) => ({ at: d.at.toISOString(), client_address: d.clientAddress, user_agent: d.userAgent });
