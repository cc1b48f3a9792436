/** The ports of the channels and deliveries domain. */
import type { Page, PageRequest } from '../../core/cursor.js';
import type { Dependent } from '../../core/errors.js';
import type {
  AttemptRecord, AttemptSend, ChannelAttemptRecord, ChannelChanges, ChannelHealth, ChannelRecord, DeliveryRecord, DeliverySettings, NewChannel,
} from './model.js';

export interface ChannelsRepo {
  find(id: string): Promise<ChannelRecord | undefined>;
  /**
   * Undefined when another channel holds the key; throws validation.failed (name,
   * validation.unique) when the name is taken (case-insensitive).
   */
  insert(channel: NewChannel): Promise<ChannelRecord | undefined>;
  /** The keys that are `base` or `base-…`. */
  keysLike(base: string): Promise<string[]>;
  /** Versioned: not_found, conflict.version; validation.failed (name or key, validation.unique) when taken. */
  update(id: string, version: number, changes: ChannelChanges, now: Date): Promise<ChannelRecord>;
  /** Deletes when no delivery uses it (the foreign key decides). */
  delete(id: string): Promise<'deleted' | 'in_use' | 'not_found'>;
  /** The reports whose deliveries use the channel. */
  dependents(id: string): Promise<Dependent[]>;
  /** By name (case-folded). */
  list(q: PageRequest): Promise<Page<ChannelRecord>>;
}

export interface NewDelivery {
  id: string;
  reportId: string;
  channelId: string;
  /** 1-based; undefined appends. */
  position: number | undefined;
  settings: DeliverySettings;
  now: Date;
}

export interface DeliveriesRepo {
  list(reportId: string): Promise<DeliveryRecord[]>;
  find(reportId: string, id: string): Promise<DeliveryRecord | undefined>;
  findById(id: string): Promise<DeliveryRecord | undefined>;
  /** Inserts and moves later ones down under the report's row lock (positions stay 1..n), in the caller's unit of work. */
  insert(d: NewDelivery): Promise<DeliveryRecord>;
  /** Versioned replace; a new position moves the others. */
  replace(reportId: string, id: string, version: number, change: { channelId: string; position: number | undefined; settings: DeliverySettings }, now: Date): Promise<DeliveryRecord>;
  /** Removes and closes the gap; false when there was none. */
  delete(reportId: string, id: string): Promise<boolean>;
}

/** An attempt planned when a run's result file is made (pending, with its job's id). */
export interface PlannedAttempt {
  id: string;
  runId: string;
  deliveryId: string;
  channelId: string;
  channelName: string;
  channelType: string;
  position: number;
  jobId: string;
  now: Date;
}

export interface AttemptEnd {
  status: 'sent' | 'failed' | 'preview';
  sends: number;
  finishedAt: Date;
  statusCode: number | null;
  peerMessageId: string | null;
  detail: string | null;
  error: { code: string; message: string } | null;
  preview?: AttemptRecord['preview'];
  /** The requests this end adds to the attempt's history. */
  history?: AttemptSend[];
  /** A failed end's automatic retry: when, which step of the schedule, and the job that carries it. */
  retry?: { at: Date; retries: number; jobId: string } | undefined;
}

/** A run's attempts by status. */
export interface AttemptTally {
  /** Pending, sending or queued. */
  open: number;
  sent: number;
  failed: number;
  previewed: number;
}

/** An attempt that may have lost its job: the sweep looks the job up and queues it again. */
export interface StuckAttempt {
  id: string;
  runId: string;
  channelId: string | null;
  deliveryId: string | null;
  status: AttemptRecord['status'];
  jobId: string | null;
}

export interface AttemptsRepo {
  /**
   * pending, sending (a stopped worker's) or queued → sending, or failed → sending when an
   * automatic retry is planned: only for the job the attempt names. Undefined otherwise.
   */
  take(id: string, jobId: string, now: Date): Promise<AttemptRecord | undefined>;
  finish(id: string, end: AttemptEnd): Promise<AttemptRecord | undefined>;
  /**
   * Records a sending attempt's end (with its automatic retry) in one statement, in the unit of
   * work that locked its run's row first: answers the run's attempts by status (this one's new
   * status included) and, when this end is the channel's latest, its health before and after
   * (a failure becomes its last error; a success keeps the one before). Undefined when the
   * attempt was not sending.
   */
  finishAndTally(id: string, runId: string, end: AttemptEnd): Promise<{ tally: AttemptTally; health: { before: ChannelHealth; after: ChannelHealth } | undefined } | undefined>;
  /**
   * A sending attempt stopped unfinished (the worker shutting down): adds the requests it made to
   * `sends` and its history and leaves it sending for the next worker (its job is handed back).
   */
  handBack(id: string, back: { sends: number; now: Date; history?: AttemptSend[] }): Promise<void>;
  /** pending, sending or queued → failed with `error` (its job failed for good, its run was cancelled). */
  giveUp(id: string, error: { code: string; message: string }, now: Date): Promise<AttemptRecord | undefined>;
  find(id: string): Promise<AttemptRecord | undefined>;
  listForRun(runId: string): Promise<AttemptRecord[]>;
  /** failed → queued under job `jobId`, replacing a planned automatic retry (the attempt when it moved). */
  queue(id: string, now: Date, jobId: string): Promise<AttemptRecord | undefined>;
  /** Every attempt through the channel, newest first, in pages, with its run's report and trigger. */
  ofChannel(channelId: string, q: PageRequest): Promise<Page<ChannelAttemptRecord>>;
  /** The channel's failed attempts since `since` whose delivery still exists, newest first. */
  failedOfChannel(channelId: string, since: Date, limit: number): Promise<AttemptRecord[]>;
  /**
   * Attempts that may have lost their job: pending, sending or queued ones untouched since
   * `before`, and failed ones whose automatic retry was due before it.
   */
  stuck(before: Date, limit: number): Promise<StuckAttempt[]>;
  /** Names a new job for the attempt (when it still names `fromJobId`); false when it moved meanwhile. */
  rejob(id: string, fromJobId: string | null, toJobId: string): Promise<boolean>;
}
