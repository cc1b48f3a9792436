/**
 * The deliveries feature's own ports: the queue its jobs go to, and the gate each send passes
 * (a channel's sends in flight, its circuit). The store's ports are the channels feature's
 * (AttemptsRepo, DeliveriesRepo, ChannelsRepo).
 */
import type { AttemptRecord, ChannelHealth, ChannelRecord, DeliveryRecord } from '../channels/model.js';
import type { AttemptEnd, AttemptTally } from '../channels/ports.js';
import type { DeliveryJob, RunContext } from '../runs/engine-ports.js';
import type { RunRecord } from '../runs/model.js';

/** The deliveries queue. */
export interface DeliveryQueue {
  /**
   * Queues the jobs (one round trip for a run's deliveries); `delayMs` waits before the job is
   * taken (an automatic retry). A job whose id is already queued is not queued twice.
   */
  enqueue(jobs: Array<DeliveryJob & { delayMs?: number | undefined }>): Promise<void>;
  /** The state of a job by its id ('missing' when the queue no longer has it). */
  state(jobId: string): Promise<'waiting' | 'active' | 'delayed' | 'prioritized' | 'completed' | 'failed' | 'missing' | 'other'>;
}

/** What a channel's gate answers a send that asks to go. */
export type GatePass =
  /**
   * Go: one of the channel's places in flight is this send's until `release`; `taken` (the peer
   * took the message) closes the circuit. `probe`: the circuit's trial send.
   */
  | { kind: 'go'; probe: boolean; release(taken: boolean): Promise<void> }
  /**
   * Every place is taken, or the open circuit's trial send is under way: try again after
   * `retryInMs` (the job waits on the queue, holding no worker).
   */
  | { kind: 'busy'; retryInMs: number }
  /** The channel's circuit is open until `until` (epoch ms): fail fast, retry after it. */
  | { kind: 'open'; until: number };

/**
 * One channel's gate, shared by every worker of the fleet: at most `limit` sends in flight, and
 * a circuit breaker that opens after a run of failed sends and lets one trial send through once
 * its time is up (a success closes it, a failure opens it again).
 */
export interface ChannelGate {
  enter(channelId: string, limit: number): Promise<GatePass>;
  /** A request failed transiently: it counts toward opening the circuit (or opens it again after a trial). */
  recordFailure(channelId: string): Promise<void>;
  /** Whether the channel's circuit is open now. */
  isOpen(channelId: string): Promise<boolean>;
}

/** Taking an attempt to send it, with what sending it reads (one statement, joining runs, reports and channels). */
export interface SendingContextSource {
  /**
   * The attempt taken for job `jobId` (as AttemptsRepo.take), with its run, the run's context, the
   * delivery `deliveryId` and its channel; undefined when it was not taken (gone, ended, or
   * carried by another job).
   */
  takeWithContext(id: string, jobId: string, deliveryId: string | null, now: Date): Promise<{
    attempt: AttemptRecord; run: RunRecord; context: RunContext; delivery: DeliveryRecord | undefined; channel: ChannelRecord | undefined;
  } | undefined>;
}

/** How recording an attempt's end in one round trip went. */
export type EndRecorded =
  /** Recorded: the run's attempts by status (this end included), the channel's health when this end is its latest, the run when this end ended it. */
  | { kind: 'ended'; tally: AttemptTally; health: { before: ChannelHealth; after: ChannelHealth } | undefined; runEnded: RunRecord | undefined }
  /** Nothing recorded: the run is gone, or the attempt was not sending (another job ended it). */
  | { kind: 'gone' }
  /** Nothing recorded: the run is not simply delivering (ended meanwhile, a cancellation asked for); record it in a unit of work. */
  | { kind: 'unusual' };

/** Recording an attempt's end with its run's settling in one round trip (the common case of a run still delivering). */
export interface AttemptEnds {
  /**
   * A sending attempt's end (as AttemptsRepo.finishAndTally, under its run's row lock), the
   * channel's health, and, when it was the run's last open attempt, the run's end as
   * settle-run.ts's deliveredOutcome gives it, with their events; all committed together.
   */
  endAttempt(id: string, runId: string, end: AttemptEnd): Promise<EndRecorded>;
}
