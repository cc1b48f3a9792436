/** What the channels and deliveries domain knows of its records (stored by src/infra/db/stores/channels-repo.ts). */
import { stateMachine, type Transition } from '../../core/state-machine.js';
import type { CellValue } from '../plugins/connector.js';

export type ChannelHealth = 'healthy' | 'failing' | 'unknown';

export interface ChannelError {
  code: string;
  message: string;
  at: Date;
}

export interface ChannelRecord {
  id: string;
  /** Unique among channels (core/slug.ts). */
  key: string;
  name: string;
  type: string;
  /** The plugin's plain settings (no secret field). */
  settings: Record<string, unknown>;
  /** Every secret field, sealed as one JSON object (context channels.secrets:<id>); null when none. */
  secretsSealed: string | null;
  health: ChannelHealth;
  lastError: ChannelError | null;
  lastAttemptAt: Date | null;
  createdBy: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type NewChannel = Omit<ChannelRecord, 'version' | 'health' | 'lastError' | 'lastAttemptAt'>;
export type ChannelChanges = Partial<Pick<ChannelRecord, 'name' | 'key' | 'settings' | 'secretsSealed'>>;

export type ResultFormat = 'csv' | 'xlsx' | 'json';

/** The settings every channel understands (openapi.yaml's DeliverySettings), plus the plugin's own fields. */
export interface DeliverySettings {
  attach: ResultFormat | null;
  link: { format: ResultFormat; expiresInDays: number } | null;
  inlineRows: number;
  sendWhenSkipped: boolean;
  /** A csv attachment (and a csv link) is formula-safe (results/streams.ts); default true. */
  csvFormulaSafe: boolean;
  subject: string;
  body: string;
  /** The plugin's own fields (email: to, cc, bcc), as given. */
  target: Record<string, unknown>;
}

export interface DeliveryRecord {
  id: string;
  reportId: string;
  channelId: string;
  channelType: string;
  /** The channel's name now (attempts keep the name they were sent under). */
  channelName: string;
  position: number;
  settings: DeliverySettings;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export const ATTEMPT_STATUSES = ['pending', 'sending', 'sent', 'failed', 'queued', 'preview'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/**
 * A delivery attempt's state machine, one row per transition (as the run's in runs/model.ts):
 * every status write of the store is one of these rows, its WHERE clause the row's `from`
 * (tests/unit/state-machines.test.ts). Only `sent` is terminal: an attempt sent is never sent again.
 */
export const ATTEMPT_TRANSITIONS = {
  /** A run's result file is made: each delivery it sends gets its attempt, pending, and a job. */
  plan: { from: [], to: ['pending'] },
  /**
   * Its job takes it: a pending one, one a stopped worker left sending (its job handed back), or
   * one a person queued again. Only the job the attempt names (job_id) takes it.
   */
  take: { from: ['pending', 'sending', 'queued'], to: ['sending'] },
  /** The automatic retry schedule's job takes a failed attempt that has a retry planned (next_retry_at). */
  retry: { from: ['failed'], to: ['sending'] },
  /** The send ended: sent, failed (perhaps with an automatic retry planned), or shown instead of sent (a preview). */
  finish: { from: ['sending'], to: ['sent', 'failed', 'preview'] },
  /** The send was stopped unfinished (a shutdown): it stays sending, with the requests it made, for the next worker. */
  handBack: { from: ['sending'], to: ['sending'] },
  /** Someone asked to send a failed attempt again (it replaces an automatic retry). */
  queue: { from: ['failed'], to: ['queued'] },
  /** Its job failed for good, or its run was cancelled before it was sent: it ends failed. */
  giveUp: { from: ['pending', 'sending', 'queued'], to: ['failed'] },
} as const satisfies Record<string, Transition<AttemptStatus>>;

/** An attempt still on its way: its run's delivery step is not over while one is. */
export const OPEN_ATTEMPT_STATUSES: ReadonlySet<AttemptStatus> = new Set(['pending', 'sending', 'queued']);

export type AttemptTransitions = typeof ATTEMPT_TRANSITIONS;

export const ATTEMPT_STATES = stateMachine(ATTEMPT_STATUSES, ATTEMPT_TRANSITIONS);

export interface RenderedMessage {
  subject: string;
  body: string;
  table: { columns: string[]; rows: CellValue[][]; totalRows: number } | null;
  attachment: { filename: string; contentType: string } | null;
  link: { url: string; expiresAt: Date } | null;
}

/** One request of an attempt to its peer: when, how long, and how it ended. */
export interface AttemptSend {
  at: Date;
  durationMs: number;
  statusCode: number | null;
  /** Null when the peer took it. */
  error: { code: string; message: string } | null;
  /** Bytes of the request bodies written (HTTP channels); null where the channel does not say. */
  bytesSent: number | null;
  /** The start of the peer's answer over HTTP (at most 200 characters); null otherwise. */
  responseExcerpt: string | null;
}

export interface AttemptRecord {
  id: string;
  runId: string;
  deliveryId: string | null;
  channelId: string | null;
  channelName: string;
  channelType: string;
  position: number;
  status: AttemptStatus;
  sends: number;
  startedAt: Date | null;
  finishedAt: Date | null;
  statusCode: number | null;
  peerMessageId: string | null;
  detail: string | null;
  error: { code: string; message: string } | null;
  preview: RenderedMessage | null;
  /** Every request made, oldest first; a resend adds to it. */
  history: AttemptSend[];
  /** When the automatic retry schedule sends this failed attempt again; null when none is planned. */
  nextRetryAt: Date | null;
  /** Automatic retries planned so far. */
  retries: number;
  /** The queue job that carries the attempt now; only it takes the attempt. */
  jobId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An attempt as a channel's page lists it: with its run's report and trigger. */
export interface ChannelAttemptRecord extends AttemptRecord {
  reportId: string;
  reportTitle: string;
  trigger: 'schedule' | 'manual' | 'test';
}
