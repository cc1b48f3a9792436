/**
 * Composing and sending one delivery: the message from the run's result and the delivery's
 * templates (inline table, attachment, shared link), then the channel's send with its quick
 * retries (send-with-retries.ts). It records nothing: the delivery worker (delivery-worker.ts)
 * takes the attempt, records how it ended and settles the run. Logs carry run_id, report_id and
 * the channel's name, never a URL or a secret.
 */
import type { Clock } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import { lruMemo } from '../../core/lru.js';
import type { Log } from '../../core/log.js';
import type { Secrets } from '../../core/secrets.js';
import type { ArtifactStore } from '../artifacts/ports.js';
import { fullSettingsOf } from '../channels/channel-settings.js';
import type { AttemptRecord, AttemptSend, ChannelRecord, DeliveryRecord, RenderedMessage } from '../channels/model.js';
import { sendsToPeople, type ChannelMessage, type ChannelPlugin, type DeliveryTarget, type OutboundHttp } from '../plugins/channel.js';
import type { CellValue } from '../plugins/connector.js';
import { CONTENT_TYPES, resultFile, resultFileName } from '../results/formats.js';
import type { RunRecord } from '../runs/model.js';
import type { RunContext } from '../runs/engine-ports.js';
import { renderTemplates, type TemplateVariables } from './templates.js';
import { createSendWithRetries, type RetryPolicy, type SendHooks, type SendOutcome } from './send-with-retries.js';

/** Rows the templates' `rows` variable holds at most. */
export const TEMPLATE_ROWS = 100;

/**
 * Attachments made lately, by result file, format and formula safety: a run's result file never
 * changes once written, so the deliveries of one run (a report sending to ten channels) read and
 * convert it once. Bounded in entries, bytes and age.
 */
export function createAttachmentCache(limits: { entries: number; bytes: number; ageMs: number }, now: () => number = Date.now) {
  const entries = new Map<string, { content: Buffer; at: number }>();
  /** Attachments being made: the deliveries of one run sent at the same moment wait for one making. */
  const making = new Map<string, Promise<Buffer>>();
  let bytes = 0;
  const drop = (key: string) => {
    const e = entries.get(key);
    if (e) { bytes -= e.content.length; entries.delete(key); }
  };
  return {
    async get(key: string, make: () => Promise<Buffer>): Promise<Buffer> {
      const hit = entries.get(key);
      if (hit && now() - hit.at <= limits.ageMs) {
        // Most recently used last.
        entries.delete(key);
        entries.set(key, hit);
        return hit.content;
      }
      drop(key);
      const pending = making.get(key);
      if (pending) return pending;
      const made = make();
      making.set(key, made);
      let content: Buffer;
      try {
        content = await made;
      } finally {
        making.delete(key);
      }
      if (content.length > limits.bytes) return content;
      entries.set(key, { content, at: now() });
      bytes += content.length;
      for (const oldest of entries.keys()) {
        if (entries.size <= limits.entries && bytes <= limits.bytes) break;
        drop(oldest);
      }
      return content;
    },
    size: () => entries.size,
  };
}

/**
 * Secrets opened once per sealed value: the deliveries of one channel (each of its runs' sends)
 * decrypt its sealed settings once, not on every send. A changed or re-sealed value is another
 * key; at most `entries` are kept (the least recently used go), in this process's memory only,
 * as the plaintext a send holds anyway.
 */
export function openedOnce(secrets: Secrets, entries = 64): Secrets {
  const opened = lruMemo<string, string>(entries);
  return {
    seal: (plaintext, context) => secrets.seal(plaintext, context),
    open: (sealed, context) => opened(`${context}\n${sealed}`, () => secrets.open(sealed, context)),
  };
}

export interface DeliveryMetrics {
  sent(channelType: string, status: 'sent' | 'failed', seconds: number): void;
}

export interface PluginLookup {
  channel(id: string): ChannelPlugin | undefined;
}

/** Makes the shared link a delivery sends (links-service.ts createLinkMaker). */
export type DeliveryLinks = (input: { runId: string; format: 'csv' | 'xlsx' | 'json'; expiresInDays: number; createdBy: null; attemptId: string })
  => Promise<{ url: string; link: { expiresAt: Date } }>;

export interface DeliverySenderDeps {
  links: DeliveryLinks;
  plugins: PluginLookup;
  secrets: Secrets;
  artifacts: Pick<ArtifactStore, 'readResult'>;
  http: OutboundHttp;
  clock: Clock;
  publicUrl: string;
  retry: RetryPolicy;
  /** Waits `ms` unless the signal aborts first (default: the clock's sleep; tests may shorten it). */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

export function createDeliverySender(deps: DeliverySenderDeps) {
  const sendWithRetries = createSendWithRetries({
    retry: deps.retry, http: deps.http, clock: deps.clock, sleep: deps.sleep ?? ((ms: number, signal: AbortSignal) => deps.clock.sleep(ms, signal)),
  });
  const base = deps.publicUrl.replace(/\/+$/, '');
  const attachments = createAttachmentCache({ entries: 32, bytes: 64 * 1024 * 1024, ageMs: 5 * 60_000 });
  const secrets = openedOnce(deps.secrets);

  /** The first rows of the stored result (for templates and inline tables). */
  async function firstRows(run: RunRecord, count: number): Promise<CellValue[][]> {
    const sample = run.sample ?? [];
    // The sample is the whole result when the result is that small: no file to read.
    if (count <= sample.length || (run.rowCount !== null && run.rowCount <= sample.length) || !run.resultKey) return sample.slice(0, count);
    const stored = await deps.artifacts.readResult(run.resultKey);
    if (!stored) return (run.sample ?? []).slice(0, count);
    const rows: CellValue[][] = [];
    for await (const batch of stored.batches) {
      for (const row of batch) { rows.push(row); if (rows.length >= count) break; }
      if (rows.length >= count) break;
    }
    return rows;
  }

  function variables(run: RunRecord, ctx: RunContext, rows: CellValue[][], runStatus: string): TemplateVariables {
    const columns = (run.columns ?? []).map((c) => c.name);
    return {
      report: { id: ctx.report.id, title: ctx.report.title, description: ctx.report.description, url: `${base}/reports/${ctx.report.id}` },
      run: {
        id: run.id, status: runStatus, trigger: run.trigger, created_at: run.createdAt.toISOString(),
        scheduled_for: run.slot?.toISOString() ?? null, url: `${base}/runs/${run.id}`, row_count: run.rowCount ?? 0,
        condition_met: run.conditionMet,
      },
      query: { id: ctx.query.id, name: ctx.query.name, version: run.queryVersion },
      columns,
      rows: rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i] ?? null]))),
      row_count: run.rowCount ?? 0,
      link: null,
      instance_url: base,
    };
  }

  /**
   * Renders a delivery's message for a run (templates, inline table, attachment, link). With
   * `sending` (the attempt's id) the attachment is built and a real link made; without it (a
   * preview) the link is shown with a placeholder token and nothing is made.
   */
  async function compose(run: RunRecord, ctx: RunContext, delivery: DeliveryRecord, runStatus: string, sending: { attemptId: string } | null,
    knownRows?: CellValue[][]): Promise<{ message: ChannelMessage; rendered: RenderedMessage }> {
    const s = delivery.settings;
    const withAttachment = sending !== null;
    // The first rows (templates see at most TEMPLATE_ROWS, tables at most 100): read once per run when given.
    const rows = knownRows ?? await firstRows(run, TEMPLATE_ROWS);
    const vars = variables(run, ctx, rows, runStatus);
    let link: ChannelMessage['link'] = null;
    if (s.link) {
      // A csv link opens formula-safe, as a csv attachment is (GET /r/{token}?formula_safe=true).
      const query = s.link.format === 'csv' && s.csvFormulaSafe ? '?formula_safe=true' : '';
      if (sending) {
        const made = await deps.links({ runId: run.id, format: s.link.format, expiresInDays: s.link.expiresInDays, createdBy: null, attemptId: sending.attemptId });
        link = { url: `${made.url}${query}`, expiresAt: made.link.expiresAt };
      } else {
        link = { url: `${base}/r/(a new token for each send)${query}`, expiresAt: new Date(deps.clock.now().getTime() + s.link.expiresInDays * 86_400_000) };
      }
      vars.link = { url: link.url, expires_at: link.expiresAt.toISOString() };
    }
    const { subject, body } = await renderTemplates(s.subject, s.body, vars);
    const table = s.inlineRows > 0
      ? { columns: vars.columns, rows: rows.slice(0, s.inlineRows), totalRows: run.rowCount ?? 0 }
      : null;
    let attachment: ChannelMessage['attachment'] = null;
    let attachmentView: RenderedMessage['attachment'] = null;
    if (s.attach) {
      const filename = resultFileName(ctx.report.title, run.slot ?? run.createdAt, s.attach);
      attachmentView = { filename, contentType: CONTENT_TYPES[s.attach] };
      if (withAttachment) {
        const key = run.resultKey;
        if (!key) throw noResult();
        const content = await attachments.get(`${key}|${s.attach}|${s.csvFormulaSafe}`, async () => {
          const stored = await deps.artifacts.readResult(key);
          if (!stored) throw noResult();
          return resultFile(stored, s.attach!, { formulaSafe: s.csvFormulaSafe });
        });
        attachment = { filename, contentType: CONTENT_TYPES[s.attach], content };
      }
    }
    const message: ChannelMessage = {
      subject, body, table, attachment, link,
      facts: {
        reportId: ctx.report.id, reportTitle: ctx.report.title, runId: run.id, runStatus, trigger: run.trigger,
        rowCount: run.rowCount ?? 0, runAt: run.slot ?? run.createdAt, runUrl: `${base}/runs/${run.id}`, columns: vars.columns,
      },
    };
    return { message, rendered: { subject, body, table, attachment: attachmentView, link } };
  }

  /**
   * Sends (or, for a test run's non-email delivery, previews) one attempt with its quick retries,
   * recording nothing: the delivery worker records how it ended. Stopped by the signal, it
   * answers the reason with the requests it made (the one cut short included).
   */
  async function send(attempt: AttemptRecord, run: RunRecord, ctx: RunContext, delivery: DeliveryRecord, channel: ChannelRecord,
    signal: AbortSignal, log: Log, hooks: SendHooks = {}): Promise<SendResult> {
    const plugin = deps.plugins.channel(channel.type);
    if (!plugin) {
      return ended(permanent({ code: 'delivery.invalid', message: `The channel plugin ${channel.type} is not installed` }));
    }
    const runStatus = run.conditionMet === false ? 'skipped' : 'success';
    const isTest = run.trigger === 'test';
    // A test run sends only where the message goes to people (the caller alone); elsewhere it previews.
    const previewOnly = isTest && !sendsToPeople(plugin);
    const made: { sends: number; history: AttemptSend[] } = { sends: 0, history: [] };
    try {
      const { message, rendered } = await compose(run, ctx, delivery, runStatus, previewOnly ? null : { attemptId: attempt.id });
      if (previewOnly) {
        log.info('test run: delivery rendered as a preview, not sent', { attempt_id: attempt.id });
        return ended({ end: { status: 'preview', sends: 0, statusCode: null, peerMessageId: null, detail: 'Rendered for the test run; not sent', error: null, preview: rendered }, transient: false, retryAfterMs: null });
      }
      let target: DeliveryTarget = delivery.settings.target;
      if (isTest) {
        if (!ctx.callerEmail) throw new DomainError('delivery.invalid', 'A test run sends email only to whoever queued it, and that user is gone');
        target = plugin.testTarget(ctx.callerEmail);
      }
      const settings = fullSettingsOf(channel, secrets);
      return ended(await sendWithRetries(plugin, settings, target, message, attempt.id, signal, made, hooks));
    } catch (err) {
      if (signal.aborted) return { kind: 'stopped', reason: signal.reason, sends: made.sends, history: made.history };
      if (!(err instanceof DomainError)) throw err;
      return ended(permanent({ code: err.code, message: err.message }));
    }
  }

  return { compose, variables, firstRows, send };
}

/** How one send ended: with the attempt's end, or stopped by its signal (a shutdown, a cancel, its time limit). */
export type SendResult =
  | { kind: 'ended'; outcome: SendOutcome }
  | { kind: 'stopped'; reason: unknown; sends: number; history: AttemptSend[] };

const ended = (outcome: SendOutcome): SendResult => ({ kind: 'ended', outcome });

const noResult = () => new DomainError('run.no_result', 'The run\'s result file is gone (removed by retention), so there is nothing to attach');

/** A failure no retry mends (a bad setting, a missing plugin, a template that fails). */
export const permanent = (error: { code: string; message: string }): SendOutcome => ({
  end: { status: 'failed', sends: 0, statusCode: null, peerMessageId: null, detail: null, error }, transient: false, retryAfterMs: null,
});

export type DeliverySender = ReturnType<typeof createDeliverySender>;
