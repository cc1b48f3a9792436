/**
 * Shared links: a run's result file behind a token that anyone holding it may download until it
 * expires or is revoked. The token (32 random bytes) exists only in the create answer and the
 * delivered message; the store keeps its SHA-256. Downloads are logged (time, client address,
 * user agent) and counted; revoking takes effect at once. Unknown, expired and revoked tokens
 * cost the same single indexed lookup, and every download request is rate limited per address.
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, notFound } from '../../core/errors.js';
import type { PageRequest } from '../../core/cursor.js';
import { newId } from '../../core/ids.js';
import type { ResultFormat } from '../channels/model.js';
import { randomToken, tokenHash } from '../identity/tokens.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import type { RunRecord } from '../runs/model.js';
import type { ResultDownload, ResultDownloads } from '../results/downloads.js';
import type { StreamOptions } from '../results/streams.js';
import { DEFAULT_LINK_DAYS, statusOf, type LinkRecord, type LinkStatus } from './model.js';
import type { LinksRepo } from './ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

const DAY_MS = 86_400_000;
/** Downloads shown with a link. */
const LATEST_DOWNLOADS = 50;

export interface DownloadQuota {
  /** Takes one download from the address's quota; false when it is spent. */
  take(address: string): Promise<boolean>;
}

/** Makes links (POST /links and deliveries that send a link): the token only in the answer. */
export function createLinkMaker(deps: {
  store: Pick<LinksRepo, 'insert'>;
  runs: { find(id: string): Promise<RunRecord | undefined> };
  clock: Clock;
  publicUrl: string;
}) {
  const base = deps.publicUrl.replace(/\/+$/, '');
  return async function make(input: { runId: string; format: ResultFormat; expiresInDays: number; createdBy: string | null; attemptId: string | null }) {
    const run = await deps.runs.find(input.runId);
    if (!run) throw new DomainError('validation.failed', 'No such run', { errors: [{ field: 'run_id', code: 'validation.invalid', message: 'is not a run' }] });
    if (!run.resultKey) throw new DomainError('run.no_result', 'The run has no result file to share');
    const token = randomToken();
    const now = deps.clock.now();
    const link = await deps.store.insert({
      id: newId(), tokenHash: tokenHash(token), runId: run.id, reportId: run.reportId, format: input.format,
      createdBy: input.createdBy, attemptId: input.attemptId, createdAt: now, expiresAt: new Date(now.getTime() + input.expiresInDays * DAY_MS),
    });
    return { link: { ...link, status: statusOf(link, now) }, token, url: `${base}/r/${token}` };
  };
}

export type LinkMaker = ReturnType<typeof createLinkMaker>;

export function createLinksService(deps: {
  /** Reads; changes go through the unit of work, with their audit record. */
  store: LinksRepo;
  uow: UnitOfWork;
  runs: { find(id: string): Promise<RunRecord | undefined> };
  downloads: ResultDownloads;
  quota: DownloadQuota;
  clock: Clock;
  publicUrl: string;
}) {
  const { store, clock } = deps;
  const withStatus = (link: LinkRecord) => ({ ...link, status: statusOf(link, clock.now()) });

  return {
    /** POST /links: an editor shares a run's result. */
    async create(input: { runId: string; format?: ResultFormat | undefined; expiresInDays?: number | undefined }, actor: Actor) {
      return deps.uow.run(async (tx) => {
        const make = createLinkMaker({ ...deps, store: tx.links });
        const made = await make({ runId: input.runId, format: input.format ?? 'csv', expiresInDays: input.expiresInDays ?? DEFAULT_LINK_DAYS, createdBy: actor.userId ?? null, attemptId: null });
        await recordSecurityEvent(tx.securityEvents, {
          type: 'link.created', actor, userId: actor.userId ?? null, target: { type: 'link', id: made.link.id },
          details: { run_id: made.link.runId, format: made.link.format, expires_at: made.link.expiresAt.toISOString() },
        }, clock);
        return made;
      });
    },

    list: (filter: { status?: LinkStatus | undefined; runId?: string | undefined }, page: PageRequest) =>
      store.list(filter, page, clock.now()).then((p) => ({ ...p, items: p.items.map(withStatus) })),

    async get(id: string) {
      const link = await store.find(id);
      if (!link) throw notFound('link');
      return { ...withStatus(link), downloads: await store.downloads(id, LATEST_DOWNLOADS) };
    },

    async revoke(id: string, actor: Actor) {
      const outcome = await deps.uow.run(async (tx) => {
        const revoked = await tx.links.revoke(id, actor.userId ?? null, clock.now());
        if (!revoked) throw notFound('link');
        if (revoked.changed) {
          await recordSecurityEvent(tx.securityEvents, { type: 'link.revoked', actor, userId: actor.userId ?? null, target: { type: 'link', id }, details: { run_id: revoked.link.runId } }, clock);
        }
        return revoked;
      });
      return withStatus(outcome.link);
    },

    /** GET /r/{token}: the file of an active link, its download recorded. */
    async download(token: string, client: { ip: string; userAgent: string | undefined }, options: StreamOptions = {}): Promise<ResultDownload> {
      if (!(await deps.quota.take(client.ip))) {
        throw new DomainError('rate_limited', 'Too many downloads from this address; retry in a minute', { retryAfterSeconds: 60 });
      }
      const link = await store.findByTokenHash(tokenHash(token));
      if (!link) throw notFound('link');
      const status = statusOf(link, clock.now());
      if (status === 'revoked') throw new DomainError('link.revoked', 'This link was revoked');
      if (status === 'expired') throw new DomainError('link.expired', 'This link has expired');
      let file: ResultDownload;
      try {
        file = await deps.downloads.open(link.runId, link.format, options);
      } catch (err) {
        // The run or its file is gone (retention): the link has run out.
        if (err instanceof DomainError && (err.code === 'run.no_result' || err.code === 'not_found')) throw new DomainError('link.expired', 'The shared file no longer exists');
        throw err;
      }
      const download = { id: newId(), at: clock.now(), clientAddress: client.ip, userAgent: client.userAgent?.slice(0, 500) ?? null };
      await deps.uow.run((tx) => tx.links.recordDownload(link.id, download));
      return file;
    },
  };
}

export type LinksService = ReturnType<typeof createLinksService>;
