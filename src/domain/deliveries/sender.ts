/**
 * Sending deliveries: after a run's query and condition, each of the report's deliveries in order
 * becomes a delivery attempt (one row per run and delivery, its id the message id peers see).
 *
 * An attempt is recorded `sending` before the peer is called and `sent` or `failed` after, so a
 * worker lost in between leaves a trace: the next worker that takes the run sends it again with
 * the same id (at least once; webhook receivers drop the duplicate by webhook-id), and an attempt
 * already `sent` is never sent again. Transient failures (timeouts, connection errors, 5xx, 429
 * with Retry-After) are retried inside the attempt (send-with-retries.ts: exponential backoff, equal jitter), a
 * bounded number of times; permanent ones (4xx, refused addresses, bad settings) are not.
 *
 * A send stopped by the run's signal ends by its reason: the run's cancel fails the attempt
 * run.cancelled, the run's time limit run.timeout; any other stop (the worker shutting down) hands
 * the attempt back unfinished for the next worker to send again under the same id. `sends`
 * counts the requests made to the peer, the one the stop cut short included.
 *
 * After each attempt the channel's health is recomputed in the store (one statement) and a
 * change is written as channel.health in the same unit of work. Logs carry run_id, report_id and the channel's name,
 * never a URL or a secret.
 */
import type { Clock } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import type { Log } from '../../core/log.js';
import type { Secrets } from '../../core/secrets.js';
import type { ArtifactStore } from '../artifacts/ports.js';
import { fullSettingsOf } from '../channels/channel-settings.js';
import type { AttemptRecord, AttemptSend, DeliveryRecord, RenderedMessage } from '../channels/model.js';
import type { AttemptEnd, AttemptsRepo, ChannelsRepo, DeliveriesRepo } from '../channels/ports.js';
import { sendsToPeople, type ChannelMessage, type ChannelPlugin, type DeliveryTarget, type OutboundHttp } from '../plugins/channel.js';
import type { CellValue } from '../plugins/connector.js';
import { CONTENT_TYPES, resultFile, resultFileName } from '../results/formats.js';
import { channelHealthChanged } from '../events/model.js';
import type { TxRepos, UnitOfWork } from '../unit-of-work/ports.js';
import type { RunRecord } from '../runs/model.js';
import type { DeliveringStatus, PlannedDeliveries, RunContext } from '../runs/engine-ports.js';
import { renderTemplates, type TemplateVariables } from './templates.js';
import { createSendWithRetries, stoppedBy, type RetryPolicy } from './send-with-retries.js';

/** Rows the templates' `rows` variable holds at most. */
export const TEMPLATE_ROWS = 100;

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
  channels: Pick<ChannelsRepo, 'find'>;
  deliveries: Pick<DeliveriesRepo, 'list' | 'findById'>;
  attempts: AttemptsRepo;
  plugins: PluginLookup;
  secrets: Secrets;
  artifacts: Pick<ArtifactStore, 'readResult'>;
  http: OutboundHttp;
  /** The channel's health and its event commit together, after the attempt's end is recorded. */
  uow: UnitOfWork;
  metrics: DeliveryMetrics;
  clock: Clock;
  log: Log;
  publicUrl: string;
  retry: RetryPolicy;
  newId(): string;
  /** Waits `ms` unless the signal aborts first (default: the clock's sleep; tests may shorten it). */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

/**
 * What else commits with a resend's end, in the same unit of work: the run's status from its
 * attempts, and its events (retry-service.ts), so no reader sees the attempt sent and the run not
 * yet settled.
 */
export type SettleRun = (tx: Pick<TxRepos, 'runs' | 'outbox'>) => Promise<void>;

export interface DeliveryTally {
  sent: number;
  failed: number;
  previewed: number;
  attempts: AttemptRecord[];
}

export function createDeliverySender(deps: DeliverySenderDeps) {
  const sendWithRetries = createSendWithRetries({
    retry: deps.retry, http: deps.http, clock: deps.clock, sleep: deps.sleep ?? ((ms: number, signal: AbortSignal) => deps.clock.sleep(ms, signal)),
  });
  const base = deps.publicUrl.replace(/\/+$/, '');

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
        const stored = run.resultKey ? await deps.artifacts.readResult(run.resultKey) : undefined;
        if (!stored) throw new DomainError('run.no_result', 'The run\'s result file is gone (removed by retention), so there is nothing to attach');
        attachment = { filename, contentType: CONTENT_TYPES[s.attach], content: await resultFile(stored, s.attach, { formulaSafe: s.csvFormulaSafe }) };
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
   * The channel's health from its latest finished attempt, with its channel.health event, in one
   * unit of work of its own after the attempt's end committed (so it reads every attempt that
   * ended before it, other workers' too).
   */
  async function afterAttempt(channelId: string, log: Log) {
    try {
      const change = await deps.uow.run(async (tx) => {
        const refreshed = await tx.channels.refreshHealth(channelId);
        if (refreshed && refreshed.before !== refreshed.after) {
          await tx.outbox.add([channelHealthChanged(channelId, refreshed.after, refreshed.before)]);
        }
        return refreshed;
      });
      if (change && change.before !== change.after) log.info('channel health changed', { health: change.after, previous: change.before });
    } catch (err) {
      log.warn('could not update the channel\'s health', { err });
    }
  }

  /**
   * Records how an attempt ended (one statement), with the run's settling when given (one unit of
   * work). When the settling fails, the end is still recorded on its own: a message that went out
   * must never be left `sending` (it would be given up as lost, and sent again by hand).
   */
  async function finishAttempt(attempt: AttemptRecord, end: AttemptEnd, settle: SettleRun | undefined, log: Log): Promise<AttemptRecord> {
    if (!settle) return (await deps.attempts.finish(attempt.id, end)) ?? attempt;
    try {
      const ended = await deps.uow.run(async (tx) => {
        const row = await tx.attempts.finish(attempt.id, end);
        await settle(tx);
        return row;
      });
      return ended ?? attempt;
    } catch (err) {
      log.warn('the run could not be settled after a resend; the attempt\'s end is recorded alone', { attempt_id: attempt.id, err });
      return (await deps.attempts.finish(attempt.id, end)) ?? attempt;
    }
  }

  /**
   * Sends (or, for a test run's non-email delivery, previews) one delivery of a run, recording it
   * as an attempt. Answers the attempt as it ended. Stopped by the worker's shutdown, the attempt
   * is handed back as `handBackAs`: sending for a run (the next worker takes the run again and
   * sends what is not recorded sent), queued for a resend (its job is taken again and claims it).
   */
  async function deliverOne(run: RunRecord, ctx: RunContext, delivery: DeliveryRecord, runStatus: string, signal: AbortSignal, parentLog: Log,
    handBackAs: 'sending' | 'queued', rows?: CellValue[][], settle?: SettleRun): Promise<AttemptRecord> {
    const channel = await deps.channels.find(delivery.channelId);
    const plugin = channel ? deps.plugins.channel(channel.type) : undefined;
    const log = parentLog.child({ channel: channel?.name ?? delivery.channelId, channel_type: delivery.channelType, delivery_id: delivery.id });
    const { attempt, alreadySent } = await deps.attempts.begin({
      runId: run.id, deliveryId: delivery.id, channelId: delivery.channelId, channelName: channel?.name ?? '(deleted channel)',
      channelType: delivery.channelType, position: delivery.position, now: deps.clock.now(),
    }, deps.newId());
    if (alreadySent) {
      log.info('delivery already sent by an earlier attempt of the run; not sent again', { attempt_id: attempt.id });
      if (settle) await deps.uow.run(settle);
      return attempt;
    }
    const started = performance.now();
    const finish = (end: Omit<AttemptEnd, 'finishedAt'>): Promise<AttemptRecord> => finishAttempt(attempt, { ...end, finishedAt: deps.clock.now() }, settle, log);
    if (!channel || !plugin) {
      return finish({ status: 'failed', sends: 0, statusCode: null, peerMessageId: null, detail: null,
        error: { code: 'delivery.invalid', message: `The channel plugin ${delivery.channelType} is not installed` } });
    }
    const isTest = run.trigger === 'test';
    // A test run sends only where the message goes to people (the caller alone); elsewhere it previews.
    const previewOnly = isTest && !sendsToPeople(plugin);
    let result: Omit<AttemptEnd, 'finishedAt'>;
    const made: { sends: number; history: AttemptSend[] } = { sends: 0, history: [] };
    try {
      const { message, rendered } = await compose(run, ctx, delivery, runStatus, previewOnly ? null : { attemptId: attempt.id }, rows);
      if (previewOnly) {
        log.info('test run: delivery rendered as a preview, not sent', { attempt_id: attempt.id });
        return finish({ status: 'preview', sends: 0, statusCode: null, peerMessageId: null, detail: 'Rendered for the test run; not sent', error: null, preview: rendered });
      }
      let target: DeliveryTarget = delivery.settings.target;
      if (isTest) {
        if (!ctx.callerEmail) throw new DomainError('delivery.invalid', 'A test run sends email only to whoever queued it, and that user is gone');
        target = plugin.testTarget(ctx.callerEmail);
      }
      const settings = fullSettingsOf(channel, deps.secrets);
      result = await sendWithRetries(plugin, settings, target, message, attempt.id, signal, made);
    } catch (err) {
      if (signal.aborted) {
        const stopped = stoppedBy(signal.reason);
        if (stopped) {
          await finish({ status: 'failed', sends: made.sends, statusCode: null, peerMessageId: null, detail: null, error: stopped, history: made.history });
          log.warn('delivery stopped', { attempt_id: attempt.id, sends: made.sends, error_code: stopped.code });
        } else {
          // Best effort: the store may be closing with the process.
          await deps.attempts.handBack(attempt.id, { sends: made.sends, status: handBackAs, now: deps.clock.now(), history: made.history })
            .catch((e: unknown) => log.warn('could not record the sends of a delivery handed back', { attempt_id: attempt.id, err: e }));
          log.info('delivery handed back unfinished; the next worker sends it again', { attempt_id: attempt.id, sends: made.sends });
        }
        throw err;
      }
      if (!(err instanceof DomainError)) throw err;
      result = { status: 'failed', sends: 0, statusCode: null, peerMessageId: null, detail: null, error: { code: err.code, message: err.message } };
    }
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.sent(channel.type, result.status === 'sent' ? 'sent' : 'failed', seconds);
    const ended = await finish(result);
    if (result.status === 'sent') log.info('delivery sent', { attempt_id: attempt.id, sends: result.sends, status_code: result.statusCode, seconds });
    else log.warn('delivery failed', { attempt_id: attempt.id, sends: result.sends, error_code: result.error?.code, error: result.error?.message, seconds });
    await afterAttempt(channel.id, log);
    return ended;
  }

  /** Sends the planned deliveries in order. */
  async function deliverRun(run: RunRecord, ctx: RunContext, runStatus: DeliveringStatus, planned: DeliveryRecord[], signal: AbortSignal, log: Log): Promise<DeliveryTally> {
    const tally: DeliveryTally = { sent: 0, failed: 0, previewed: 0, attempts: [] };
    const rows = await firstRows(run, TEMPLATE_ROWS);
    for (const delivery of planned) {
      signal.throwIfAborted();
      const attempt = await deliverOne(run, ctx, delivery, runStatus, signal, log, 'sending', rows);
      tally.attempts.push(attempt);
      if (attempt.status === 'sent') tally.sent += 1;
      else if (attempt.status === 'preview') tally.previewed += 1;
      else tally.failed += 1;
    }
    return tally;
  }

  return {
    compose,
    variables,
    firstRows,

    /**
     * The run engine's DeliverRun: the report's deliveries that a run ending `runStatus` sends,
     * in order (undefined when none apply), each sent as one attempt when the engine says so.
     */
    async plan(reportId: string, runStatus: DeliveringStatus): Promise<PlannedDeliveries | undefined> {
      const all = await deps.deliveries.list(reportId);
      const planned = all.filter((d) => runStatus === 'success' || d.settings.sendWhenSkipped);
      if (planned.length === 0) return undefined;
      return { send: (run, ctx, signal, log) => deliverRun(run, ctx, runStatus, planned, signal, log) };
    },

    /**
     * Sends one queued attempt again (POST …/attempts/{id}/retry, …/retry-failed); its end commits
     * with `settle` (the run's status and events).
     */
    async resend(attempt: AttemptRecord, run: RunRecord, ctx: RunContext, signal: AbortSignal, log: Log, settle?: SettleRun): Promise<AttemptRecord> {
      const delivery = attempt.deliveryId ? await deps.deliveries.findById(attempt.deliveryId) : undefined;
      if (!delivery) {
        return finishAttempt(attempt, { status: 'failed', sends: attempt.sends, finishedAt: deps.clock.now(), statusCode: null, peerMessageId: null, detail: null,
          error: { code: 'delivery.gone', message: 'The delivery was removed from the report, so the attempt cannot be sent again' } }, settle, log);
      }
      const runStatus = run.conditionMet === false ? 'skipped' : 'success';
      // begin() finds the attempt of (run, delivery) that the claim already set to sending.
      return deliverOne(run, ctx, delivery, runStatus, signal, log, 'queued', undefined, settle);
    },
  };
}

export type DeliverySender = ReturnType<typeof createDeliverySender>;
