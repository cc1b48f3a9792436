/** The ports of shared links. */
import type { Page, PageRequest } from '../../core/cursor.js';
import type { ResultFormat } from '../channels/model.js';
import type { LinkDownload, LinkRecord, LinkStatus } from './model.js';

export interface NewLink {
  id: string;
  tokenHash: string;
  runId: string;
  reportId: string;
  format: ResultFormat;
  createdBy: string | null;
  attemptId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export interface LinksRepo {
  insert(link: NewLink): Promise<LinkRecord>;
  find(id: string): Promise<LinkRecord | undefined>;
  findByTokenHash(hash: string): Promise<LinkRecord | undefined>;
  /** Newest first; status is computed against `now`. */
  list(filter: { status?: LinkStatus | undefined; runId?: string | undefined }, page: PageRequest, now: Date): Promise<Page<LinkRecord>>;
  downloads(id: string, limit: number): Promise<LinkDownload[]>;
  /** Sets revoked_at when not yet set; answers the link after (undefined when unknown). */
  revoke(id: string, by: string | null, now: Date): Promise<{ link: LinkRecord; changed: boolean } | undefined>;
  recordDownload(id: string, download: LinkDownload & { id: string }): Promise<void>;
}
