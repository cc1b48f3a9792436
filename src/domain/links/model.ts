/** Shared links to run results (stored by src/infra/db/stores/links-repo.ts). */
import type { ResultFormat } from '../channels/model.js';

export type LinkStatus = 'active' | 'revoked' | 'expired';

export interface LinkRecord {
  id: string;
  runId: string;
  reportId: string;
  reportTitle: string;
  format: ResultFormat;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  downloadCount: number;
  lastDownloadedAt: Date | null;
}

export interface LinkDownload {
  at: Date;
  clientAddress: string;
  userAgent: string | null;
}

export function statusOf(link: Pick<LinkRecord, 'revokedAt' | 'expiresAt'>, now: Date): LinkStatus {
  if (link.revokedAt) return 'revoked';
  return link.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}

/** The default and the longest life of a link, in days (decisions: 7 and 90). */
export const DEFAULT_LINK_DAYS = 7;
export const MAX_LINK_DAYS = 90;
