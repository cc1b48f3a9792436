/** The ports of the channels and deliveries domain. */
import type { Page, PageRequest } from '../../core/cursor.js';
import type { Dependent } from '../../core/errors.js';
import type {
  AttemptRecord, AttemptSend, AttemptStatus, ChannelChanges, ChannelHealth, ChannelRecord, DeliveryRecord, DeliverySettings, NewChannel,
} from './model.js';

export interface ChannelsRepo {
  find(id: string): Promise<ChannelRecord | undefined>;
  /** Throws validation.failed (name, validation.unique) when the name is taken (case-insensitive). */
  insert(channel: NewChannel): Promise<ChannelRecord>;
  /** Versioned: not_found, conflict.version. */
  update(id: string, version: number, changes: ChannelChanges, now: Date): Promise<ChannelRecord>;
  /** Deletes when no delivery uses it (the foreign key decides). */
  delete(id: string): Promise<'deleted' | 'in_use' | 'not_found'>;
  /** The reports whose deliveries use the channel. */
  dependents(id: string): Promise<Dependent[]>;
  /** By name (case-folded). */
  list(q: PageRequest): Promise<Page<ChannelRecord>>;
  /**
   * Sets health, last error and last attempt time from the channel's latest finished attempt,
   * in one statement; answers the health before and after (undefined when the channel is gone).
   */
  refreshHealth(id: string): Promise<{ before: ChannelHealth; after: ChannelHealth } | undefined>;
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

export interface AttemptStart {
  runId: string;
  deliveryId: string;
  channelId: string;
  channelName: string;
  channelType: string;
  position: number;
  now: Date;
}

export interface AttemptEnd {
  status: Exclude<AttemptStatus, 'sending' | 'queued'>;
  sends: number;
  finishedAt: Date;
  statusCode: number | null;
  peerMessageId: string | null;
  detail: string | null;
  error: { code: string; message: string } | null;
  preview?: AttemptRecord['preview'];
  /** The requests this end adds to the attempt's history. */
  history?: AttemptSend[];
}

export interface AttemptsRepo {
  /**
   * The attempt of (run, delivery) to send now: a new one (status sending), or the one a lost
   * worker left (sending, failed: the same id again). `alreadySent` when it was sent before.
   */
  begin(start: AttemptStart, id: string): Promise<{ attempt: AttemptRecord; alreadySent: boolean }>;
  finish(id: string, end: AttemptEnd): Promise<AttemptRecord | undefined>;
  /**
   * A sending attempt stopped unfinished (the worker shutting down): adds the requests it made to
   * `sends` and leaves it `status` (sending, or queued again) for the next worker to send.
   */
  handBack(id: string, back: { sends: number; status: 'sending' | 'queued'; now: Date; history?: AttemptSend[] }): Promise<void>;
  find(id: string): Promise<AttemptRecord | undefined>;
  listForRun(runId: string): Promise<AttemptRecord[]>;
  /** failed → queued (answers the attempt when it moved; undefined otherwise). */
  queue(id: string, now: Date): Promise<AttemptRecord | undefined>;
  /**
   * queued → sending; undefined otherwise (a second job for the same resend, or one retried after
   * its worker was lost, finds it taken; the sweep ends resends left sending).
   */
  claim(id: string, now: Date): Promise<AttemptRecord | undefined>;
  /** The channel's failed attempts since `since` whose delivery still exists, newest first. */
  failedOfChannel(channelId: string, since: Date, limit: number): Promise<AttemptRecord[]>;
  /**
   * Resends whose job went missing: queued attempts untouched since `queuedBefore` (their job is
   * queued again by the caller), and sending ones of finished runs untouched since
   * `sendingBefore` (their worker is gone: they end failed, and `lost` counts them).
   */
  stuckResends(queuedBefore: Date, sendingBefore: Date, now: Date): Promise<{ queued: Array<{ id: string; runId: string }>; lost: number }>;
}
