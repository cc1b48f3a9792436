/**
 * The run engine's store in memory, rolled back with the unit of work: runs by id, the attempt
 * that holds each, its lease (heartbeats), and the source a run reads (its report's query or
 * pinned version and the connection) from the reports, queries and connections fakes.
 */
import { newId } from '../../../src/core/ids.js';
import type { RunContext, RunEngineStore, RunOutcome, RunProgress, RunSource } from '../../../src/domain/runs/engine-ports.js';
import type { RunError, RunRecord, RunStep } from '../../../src/domain/runs/model.js';
import type { ChangeEvent } from '../../../src/domain/events/model.js';
import type { PlannedAttempt } from '../../../src/domain/channels/ports.js';
import { runUpdated } from '../../../src/domain/runs/events.js';
import type { FakeConnections } from './connections.js';
import type { FakeOutbox } from './events.js';
import type { FakeQueries } from './queries.js';
import type { FakeReports } from './reports.js';
import { MemoryTable, type Transactional } from './table.js';

const unfinished = (run: RunRecord | undefined): run is RunRecord => run?.status === 'pending' || run?.status === 'running';

export class FakeRunEngineStore implements RunEngineStore, Transactional {
  readonly runs = new MemoryTable<RunRecord>();
  /** Reports that have deliveries. */
  readonly withDeliveries = new Set<string>();
  /** Heartbeats each run's worker sent. */
  readonly heartbeats = new Map<string, number>();
  /** Writes of progress (saveProgress), each a store statement. */
  progressWrites = 0;

  /** Single statements of claim and end (each writes its run's events itself, outside any unit of work). */
  statements = 0;

  constructor(private readonly repos: { reports: FakeReports; queries: FakeQueries; connections: FakeConnections; outbox?: FakeOutbox }) {}

  /** A pending run of the report, as the runs service queues one. */
  queue(reportId: string, extra: Partial<RunRecord> = {}): RunRecord {
    return this.runs.put({
      id: newId(), reportId, trigger: 'manual', status: 'pending', deliver: false, slot: null, parameters: {}, condition: null,
      conditionMet: null, queryVersion: null, rowCount: null, columns: null, sample: null, steps: [], error: null,
      resultKey: null, resultBytes: null, resultHash: null, attempts: 0, createdBy: null, createdAt: new Date(0),
      startedAt: null, finishedAt: null, cancelRequestedAt: null, deliveringSince: null, ...extra,
    });
  }

  /** Asks for the run's cancellation in the store only (as if the event were lost). */
  requestCancel(runId: string, at: Date): void {
    const run = this.runs.get(runId);
    if (run) this.runs.put({ ...run, cancelRequestedAt: at });
  }

  async start(runId: string, now: Date, steps: RunStep[] = []): Promise<RunRecord | undefined> {
    const run = this.runs.get(runId);
    if (!unfinished(run) || run.deliveringSince) return undefined;
    return this.runs.put({
      ...run, status: 'running', startedAt: run.startedAt ?? now, attempts: run.attempts + 1, steps,
      rowCount: null, columns: null, sample: null, conditionMet: null, resultKey: null, resultBytes: null, resultHash: null,
    });
  }

  async claim(runId: string, now: Date, steps: RunStep[] = []): Promise<{ run: RunRecord; source: RunSource | undefined } | undefined> {
    this.statements += 1;
    const run = await this.start(runId, now, steps);
    if (!run) return undefined;
    await this.repos.outbox?.add([runUpdated(run)]);
    return { run, source: await this.source(run.reportId) };
  }

  async end(runId: string, attempt: number, outcome: RunOutcome, events: readonly ChangeEvent[]): Promise<boolean> {
    this.statements += 1;
    const run = await this.finish(runId, attempt, outcome);
    if (run) await this.repos.outbox?.add(events);
    return run !== undefined;
  }

  async source(reportId: string): Promise<RunSource | undefined> {
    const report = this.repos.reports.rows.get(reportId);
    if (!report) return undefined;
    const current = this.repos.queries.queries.get(report.queryId);
    const version = report.queryVersion !== null ? this.repos.queries.versions.get(`${report.queryId}/${report.queryVersion}`) : undefined;
    const query = report.queryVersion !== null
      ? (version ? { sql: version.sql, parameters: version.parameters, version: version.number } : undefined)
      : (current ? { sql: current.sql, parameters: current.parameters, version: current.currentVersion } : undefined);
    const connectionId = report.queryVersion !== null ? version?.connectionId : current?.connectionId;
    const connection = connectionId ? this.repos.connections.rows.get(connectionId) : undefined;
    return { query, connection, hasDeliveries: this.withDeliveries.has(reportId) };
  }

  private holding(runId: string, attempt: number): RunRecord | undefined {
    const run = this.runs.get(runId);
    return run?.status === 'running' && run.attempts === attempt ? run : undefined;
  }

  async saveProgress(runId: string, attempt: number, progress: RunProgress, _now: Date): Promise<boolean> {
    const run = this.holding(runId, attempt);
    if (!run) return false;
    this.progressWrites += 1;
    this.runs.put({ ...run, ...progress });
    return true;
  }

  async finish(runId: string, attempt: number, outcome: RunOutcome): Promise<RunRecord | undefined> {
    const run = this.holding(runId, attempt);
    if (!run) return undefined;
    return this.runs.put({ ...run, ...outcome });
  }

  async previousSuccessHash(reportId: string, beforeRunId: string): Promise<string | undefined> {
    const earlier = this.runs.all().filter((r) => r.reportId === reportId && r.status === 'success' && r.id < beforeRunId).sort((a, b) => b.id.localeCompare(a.id));
    return earlier[0]?.resultHash ?? undefined;
  }

  async heartbeat(runId: string, attempt: number): Promise<boolean> {
    this.heartbeats.set(runId, (this.heartbeats.get(runId) ?? 0) + 1);
    const run = this.holding(runId, attempt);
    return !run || run.cancelRequestedAt !== null;
  }

  async markLost(runId: string, error: RunError, now: Date): Promise<RunRecord | undefined> {
    const run = this.runs.get(runId);
    if (!unfinished(run) || run.deliveringSince) return undefined;
    const steps = run.steps.map((s) => (s.status === 'running' ? { ...s, status: 'failed' as const, finishedAt: now, error } : s));
    return this.runs.put({ ...run, status: 'failed', error, finishedAt: now, steps });
  }

  /** Attempts planned by hand-overs, in order. */
  readonly planned: PlannedAttempt[] = [];

  async handOver(runId: string, attempt: number, progress: RunProgress, now: Date, attempts: readonly PlannedAttempt[]): Promise<boolean> {
    this.statements += 1;
    const held = this.holding(runId, attempt);
    if (!held || held.deliveringSince) return false;
    const run = this.runs.put({ ...held, ...progress, deliveringSince: now });
    this.planned.push(...attempts);
    await this.repos.outbox?.add([runUpdated(run)]);
    return true;
  }

  async exists(runId: string): Promise<boolean> {
    return this.runs.get(runId) !== undefined;
  }

  async runContext(reportId: string, createdBy: string | null): Promise<RunContext | undefined> {
    const report = this.repos.reports.rows.get(reportId);
    const query = report ? this.repos.queries.queries.get(report.queryId) : undefined;
    if (!report || !query) return undefined;
    return { report: { id: report.id, title: report.title, description: report.description }, query: { id: query.id, name: query.name }, callerEmail: createdBy ? `${createdBy}@example.com` : null };
  }

  snapshot(): () => void {
    return this.runs.snapshot();
  }
}
