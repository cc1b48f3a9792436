/**
 * The run engine: execute(runId, { signal }) takes a queued run and carries it to its end.
 *
 * Steps: `query` (the rows stream from the user database into the result file, counted, hashed,
 * the first 20 kept as the sample; never the whole result in memory), `condition` (when the run
 * has one: false ends it `skipped`), `result_file`, then `delivery` when the run delivers and
 * the report has deliveries that apply. The start (which also reads the report's query and
 * connection) and the end are each one statement of the store that writes the run's events with
 * it (the outbox: the change and its events commit together, numbered by the relays); the steps
 * between are kept here and written with the end, and no network call happens inside a
 * transaction. A run that delivers does not end here: its progress, its delivery step (running)
 * and one pending attempt per delivery commit together, each attempt's job goes to the deliveries
 * queue, and the run's job is over; the run stays running until the last attempt settles it
 * (deliveries/delivery-worker.ts). The run's time limit covers its query and file; each delivery
 * has its own limits.
 *
 * The signal stops it: a RunCancelled reason ends the run `cancelled`, RunTimedOut ends it
 * `failed` (run.timeout); any other reason (the worker shutting down) records nothing and
 * rethrows, leaving the run `running` for the next worker to take again (attempts + 1). The
 * statement is cancelled on the database in every case, since the connector honours the signal.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../../core/errors.js';
import type { Clock, Timer } from '../../core/clock.js';
import type { Log } from '../../core/log.js';
import type { ArtifactStore, ResultWriter } from '../artifacts/ports.js';
import { resultKeyOf } from '../artifacts/ports.js';
import { inlineResultKeyOf } from '../../core/result-keys.js';
import type { ConnectorPools } from '../connections/pools.js';
import type { CellValue, ResultColumn } from '../plugins/connector.js';
import { bindValues } from '../queries/parameters.js';
import { compileTemplate, parseSqlTemplate, placeholderNames } from '../queries/sql-template.js';
import { newId } from '../../core/ids.js';
import { firstDeliveryJobId, type DeliverRun, type JudgeCondition, type PlannedDelivery, type RunEngineStore, type RunMetrics, type RunOutcome, type RunProgress, type RunSource } from './engine-ports.js';
import { runChanged } from './events.js';
import { RunCancelled, RunTimedOut, SAMPLE_ROWS, type RunError, type RunRecord, type RunStep, type StepName } from './model.js';

/** Rows per fetch from the user database. */
const BATCH_SIZE = 1000;
/**
 * How often a running run renews its lease in the store (the sweep's proof that its worker is
 * alive) and looks for a cancellation it may have missed on the event bus.
 */
export const CANCEL_POLL_MS = 2000;

export interface RunEngineDeps {
  /** Reads and single-statement writes: the claim, the end and the hand-over to deliveries are single statements with their events. */
  store: RunEngineStore;
  pools: ConnectorPools;
  artifacts: ArtifactStore;
  metrics: RunMetrics;
  clock: Clock;
  log: Log;
  /** SVC_RUN_TIMEOUT_SECONDS in ms: the whole run's budget. */
  timeoutMs: number;
  /** Default CANCEL_POLL_MS. */
  cancelPollMs?: number;
  /** Judges a run's condition (the reports feature's). */
  conditions: JudgeCondition;
  /** Plans and queues the report's deliveries after the result file (absent: runs end without delivering). */
  deliveries?: DeliverRun | undefined;
}

/** A failure that ends the run `failed` with this code and message. */
class RunFailure extends Error {
  constructor(readonly error: RunError) { super(error.message); }
}

const errorOf = (err: unknown): RunError | undefined => {
  if (err instanceof RunFailure) return err.error;
  if (err instanceof DomainError) {
    const details = err.extras.errors?.map((e) => `${e.field}: ${e.message ?? e.code}`).join('; ');
    return { code: err.code, message: details ? `${err.message} (${details})` : err.message };
  }
  return undefined;
};

export function createRunEngine(deps: RunEngineDeps) {
  const { store, clock } = deps;

  async function execute(runId: string, options: { signal: AbortSignal; reportId?: string | undefined }): Promise<void> {
    // Taken with its first step running, announced, and what it runs read: one statement (its
    // event commits with it).
    const startedAt = clock.now();
    const firstStep: RunStep = { name: 'query', status: 'running', startedAt, finishedAt: null, error: null };
    const claimed = await store.claim(runId, startedAt, [firstStep]);
    if (!claimed) {
      deps.log.info('run not taken: it is gone, finished or cancelled', { run_id: runId, ...(options.reportId ? { report_id: options.reportId } : {}) });
      return;
    }
    const { run, source } = claimed;
    const log = deps.log.child({ run_id: run.id, report_id: run.reportId });
    log.info('run started', { trigger: run.trigger, attempt: run.attempts });

    // The run's own stop: the caller's signal, cancellation, and the run's time limit.
    const stop = new AbortController();
    const onOuter = () => stop.abort(options.signal.reason);
    if (options.signal.aborted) onOuter();
    else options.signal.addEventListener('abort', onOuter, { once: true });
    // Both timers run on the injected clock (a test moves it instead of waiting).
    const budget = clock.timer(deps.timeoutMs, () => stop.abort(new RunTimedOut(deps.timeoutMs)));
    // The next check is set once the last one answered, so checks never pile up on a slow store.
    let poll: Timer | undefined;
    const checkLater = () => {
      poll = clock.timer(deps.cancelPollMs ?? CANCEL_POLL_MS, () => {
        store.heartbeat(run.id, run.attempts).then((yes) => { if (yes) stop.abort(new RunCancelled()); },
          (err) => log.warn('could not check for a cancellation', { err }))
          .finally(() => { if (!stop.signal.aborted && poll) checkLater(); });
      });
    };
    checkLater();
    const startedMs = run.startedAt?.getTime() ?? clock.now().getTime();

    const steps: RunStep[] = [firstStep];
    const progress: RunProgress = { steps };
    let writer: ResultWriter | undefined;
    let wroteFile = false;
    const key = resultKeyOf(run.reportId, run.id);
    /**
     * The steps are kept here and written with the run's end (or its hand-over to its
     * deliveries): the claim wrote the query step running, and the end's event tells watchers
     * how the steps went; no statement per step.
     */
    const beginStep = (name: StepName) => {
      const existing = name === 'query' ? steps.find((s) => s.name === 'query' && s.status === 'running') : undefined;
      if (existing) return existing;
      const step: RunStep = { name, status: 'running', startedAt: clock.now(), finishedAt: null, error: null };
      steps.push(step);
      return step;
    };
    const endStep = (step: RunStep, status: RunStep['status'], detail?: Record<string, unknown>, error: RunError | null = null) => {
      step.status = status;
      step.finishedAt = clock.now();
      step.error = error;
      if (detail) step.detail = detail;
    };

    let outcome: Outcome;
    try {
      if (run.cancelRequestedAt) {
        // Cancelled while no worker held it (its worker was lost or shutting down).
        stop.abort(new RunCancelled());
        throw stop.signal.reason;
      }
      outcome = await carryOut(run, source, stop.signal, beginStep, endStep, progress, async (columns) => {
        writer = await deps.artifacts.createResult(key, columns);
        wroteFile = true;
        return writer;
      });
    } catch (err) {
      await writer?.abort();
      const reason: unknown = stop.signal.aborted ? stop.signal.reason : undefined;
      if (err instanceof RunGone || (reason === undefined && !(await store.exists(run.id)))) {
        // Gone (its report was deleted), or ended or taken again by another attempt: only a run
        // that no longer exists gives up its file; another attempt's file is that attempt's.
        const exists = await store.exists(run.id);
        log.info(exists ? 'run ended or taken again elsewhere; this attempt stops' : 'run gone while it ran (its report was deleted); its result file is removed');
        if (wroteFile && !exists) await deps.artifacts.remove(key).catch(() => undefined);
        return;
      }
      const running = steps.find((s) => s.status === 'running');
      if (reason instanceof RunCancelled) {
        if (running) { running.status = 'cancelled'; running.finishedAt = clock.now(); }
        outcome = { status: 'cancelled', error: { code: 'run.cancelled', message: 'The run was cancelled while it ran' } };
      } else if (reason instanceof RunTimedOut) {
        const error = { code: 'run.timeout', message: reason.message };
        if (running) { running.status = 'failed'; running.finishedAt = clock.now(); running.error = error; }
        outcome = { status: 'failed', error };
      } else if (reason !== undefined) {
        // The worker is shutting down: record nothing; the next worker takes the run again.
        log.info('run handed back unfinished', { reason: String((reason as Error)?.message ?? reason) });
        throw err;
      } else {
        const error = errorOf(err);
        if (!error) throw err; // the service's own fault (store, Redis): the job is retried
        if (running) { running.status = 'failed'; running.finishedAt = clock.now(); running.error = error; }
        outcome = { status: 'failed', error };
      }
    } finally {
      budget.cancel();
      poll?.cancel();
      poll = undefined;
      options.signal.removeEventListener('abort', onOuter);
    }

    if (outcome.deliver) {
      await handOver(run, outcome.deliver, { ...progress, steps }, key, wroteFile, log);
      return;
    }
    const finishedAt = clock.now();
    // The end and its events in one statement (the events are those of the record after, which
    // is known here: the run as taken, with its outcome).
    const events = runChanged({ id: run.id, reportId: run.reportId, trigger: run.trigger, status: outcome.status, finishedAt, error: outcome.error });
    const ended = await store.end(run.id, run.attempts, { ...progress, ...outcome, steps, finishedAt }, events);
    if (!ended) {
      if (wroteFile && !(await store.exists(run.id))) await deps.artifacts.remove(key).catch(() => undefined);
      log.info('run ended or taken again elsewhere before it could be recorded; this attempt stops');
      return;
    }
    const seconds = Math.max(0, (finishedAt.getTime() - startedMs) / 1000);
    deps.metrics.finished(outcome.status, run.trigger, seconds);
    if (outcome.error) log.warn('run finished', { status: outcome.status, error_code: outcome.error.code, error: outcome.error.message, seconds });
    else log.info('run finished', { status: outcome.status, rows: progress.rowCount ?? null, seconds });
  }

  /**
   * The run's deliveries become jobs: its progress (the delivery step running), one pending
   * attempt per delivery and its event commit together; the jobs are queued after the commit (a
   * failed enqueue is the sweep's: it finds the attempts pending without a job).
   */
  async function handOver(run: RunRecord, planned: PlannedDelivery[], progress: RunProgress, key: string, wroteFile: boolean, log: Log) {
    const now = clock.now();
    const attempts = planned.map((d) => {
      const id = newId();
      return { ...d, id, runId: run.id, jobId: firstDeliveryJobId(id), now };
    });
    const handed = await store.handOver(run.id, run.attempts, progress, now, attempts);
    if (!handed) {
      if (wroteFile && !(await store.exists(run.id))) await deps.artifacts.remove(key).catch(() => undefined);
      log.info('run ended elsewhere before its deliveries could be queued');
      return;
    }
    try {
      await deps.deliveries!.enqueue(attempts.map((a) => ({ attemptId: a.id, runId: run.id, jobId: a.jobId, channelId: a.channelId, deliveryId: a.deliveryId })));
    } catch (err) {
      log.warn('the run\'s deliveries could not be queued now; the sweep queues them', { err, deliveries: attempts.length });
    }
    log.info('run delivering', { deliveries: attempts.length, rows: progress.rowCount ?? null });
  }

  /** The steps of one run; answers its outcome, or throws (a RunFailure, a DomainError, an abort). */
  async function carryOut(
    run: RunRecord,
    found: RunSource | undefined,
    signal: AbortSignal,
    beginStep: (name: StepName) => RunStep,
    endStep: (step: RunStep, status: RunStep['status'], detail?: Record<string, unknown>, error?: RunError | null) => void,
    progress: RunProgress,
    openFile: (columns: ResultColumn[]) => Promise<ResultWriter>,
  ): Promise<Outcome> {
    const query = beginStep('query');
    if (!found) throw new RunGone();
    const source = found.query;
    if (!source) throw new RunFailure({ code: 'run.query_missing', message: 'The report\'s query or pinned query version no longer exists' });
    progress.queryVersion = source.version;
    const template = parseSqlTemplate(source.sql);
    let values;
    try {
      values = bindValues(source.parameters, run.parameters, placeholderNames(template));
    } catch (err) {
      const e = errorOf(err);
      throw new RunFailure({ code: 'run.parameters_invalid', message: e?.message ?? String(err) });
    }
    const connection = found.connection;
    if (!connection) throw new RunFailure({ code: 'run.query_missing', message: 'The query\'s connection no longer exists' });
    const { connector, session } = deps.pools.sessionFor(connection);
    const statement = compileTemplate(template, (n) => connector.placeholder(n), values);
    const asked = performance.now();
    let started: number | undefined;
    // The database's own limit a little past the run's, so that the run's limit (run.timeout) speaks first.
    // NDJSON lines straight from the database's bytes where the connector can (no value per
    // cell: the file's lines and the hash are the same either way), else rows as values.
    const executeOptions = { signal, timeoutMs: deps.timeoutMs + 2000, batchSize: BATCH_SIZE, onConnected: () => { started = performance.now(); } };
    const stream = session.executeNdjson ? await session.executeNdjson(statement, executeOptions) : await session.execute(statement, executeOptions);
    // The query's own time starts when it had a connection; the wait for one (a full pool) is its own figure.
    started ??= asked;
    const waitMs = Math.round(started - asked);
    const hash = createHash('sha256').update(JSON.stringify(stream.columns));
    const sample: CellValue[][] = [];
    let rowCount = 0;
    const writer = await openFile(stream.columns);
    if ('ndjson' in stream) {
      for await (const batch of stream.ndjson) {
        signal.throwIfAborted();
        if (sample.length < SAMPLE_ROWS) sampleLines(batch.lines, sample);
        rowCount += batch.rows;
        await writer.writeLines(batch.lines);
        // The hash is of "\n" + each row's JSON, as below.
        if (batch.lines.length > 0) hash.update('\n').update(batch.lines.subarray(0, batch.lines.length - 1));
      }
    } else {
      for await (const batch of stream.batches) {
        signal.throwIfAborted();
        for (const row of batch) {
          if (sample.length < SAMPLE_ROWS) sample.push(row);
        }
        rowCount += batch.length;
        // The hash is of "\n" + each row's JSON: the NDJSON lines the file writer wrote, when it
        // answers them (each row encoded once), else encoded here.
        const lines = await writer.write(batch);
        if (typeof lines === 'string') {
          if (lines) hash.update(`\n${lines.slice(0, -1)}`);
        } else {
          for (const row of batch) hash.update('\n').update(JSON.stringify(row));
        }
      }
    }
    const elapsedMs = Math.round(performance.now() - started);
    const resultHash = hash.digest('hex');
    Object.assign(progress, { rowCount, columns: stream.columns, sample });
    deps.metrics.rows(rowCount);
    endStep(query, 'success', { rows: rowCount, elapsed_ms: elapsedMs, wait_ms: waitMs });

    let met: boolean | null = null;
    if (run.condition) {
      const check = beginStep('condition');
      const previousHash = deps.conditions.needsPreviousResult(run.condition) ? await store.previousSuccessHash(run.reportId, run.id) : undefined;
      const result = deps.conditions.judge(run.condition, { columns: stream.columns, rowCount, firstRow: sample[0], hash: resultHash, previousHash });
      met = result.met;
      progress.conditionMet = met;
      endStep(check, 'success', { met, reason: result.reason });
    }

    const file = beginStep('result_file');
    const { bytes, inline } = await writer.finish();
    const key = resultKeyOf(run.reportId, run.id);
    // A file an earlier attempt wrote before it was lost would be nobody's once this attempt's
    // result is kept in the store (a file under the same key is simply replaced).
    if (inline && run.attempts > 1) await deps.artifacts.remove(key).catch(() => undefined);
    Object.assign(progress, { resultKey: inline ? inlineResultKeyOf(key) : key, resultBytes: bytes, resultHash, ...(inline ? { resultInline: inline } : {}) });
    endStep(file, 'success', { bytes });
    const base = met === false ? 'skipped' : 'success';
    if (!deps.deliveries || !run.deliver || !found.hasDeliveries) return { status: base, error: null };

    const planned = await deps.deliveries.plan(run.reportId, base);
    if (planned.length === 0) return { status: base, error: null };
    signal.throwIfAborted();
    // Saved with the attempts (handOver); it ends when the last attempt settles the run.
    beginStep('delivery');
    return { status: base, error: null, deliver: planned };
  }

  return { execute };
}

/** How the steps ended: the run's outcome, or the deliveries it hands over (it ends when they settle). */
type Outcome = Omit<RunOutcome, 'finishedAt' | 'steps'> & { deliver?: PlannedDelivery[] };

/** The run row vanished (its report was deleted) while the run went on. */
class RunGone extends Error {
  constructor() { super('the run no longer exists'); }
}

/** The first rows of NDJSON lines into `sample`, up to SAMPLE_ROWS (each line is a row's JSON). */
function sampleLines(lines: Buffer, sample: CellValue[][]): void {
  let start = 0;
  while (sample.length < SAMPLE_ROWS && start < lines.length) {
    let end = lines.indexOf(0x0a, start);
    if (end === -1) end = lines.length;
    sample.push(JSON.parse(lines.toString('utf8', start, end)) as CellValue[]);
    start = end + 1;
  }
}

export type RunEngine = ReturnType<typeof createRunEngine>;
