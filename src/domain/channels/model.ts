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
export type ChannelChanges = Partial<Pick<ChannelRecord, 'name' | 'settings' | 'secretsSealed'>>;

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
  position: number;
  settings: DeliverySettings;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export const ATTEMPT_STATUSES = ['sending', 'sent', 'failed', 'queued', 'preview'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/**
 * A delivery attempt's state machine, one row per transition (as the run's in runs/model.ts):
 * every status write of the store is one of these rows, its WHERE clause the row's `from`
 * (tests/unit/state-machines.test.ts). Only `sent` is terminal: an attempt sent is never sent again.
 */
export const ATTEMPT_TRANSITIONS = {
  /**
   * An attempt is sent: a new one, or the row of the same run and delivery that a lost worker, a
   * queued retry or a failed send left (under the same id; a `sent` row stays sent).
   */
  begin: { from: ['sending', 'failed', 'queued', 'preview'], to: ['sending'] },
  /** The send ended: sent, failed, or shown instead of sent (a preview). */
  finish: { from: ['sending', 'failed', 'queued', 'preview'], to: ['sent', 'failed', 'preview'] },
  /** The send was stopped unfinished (a shutdown): left for the next worker, or queued again for a resend. */
  handBack: { from: ['sending'], to: ['sending', 'queued'] },
  /** Someone asked to send a failed attempt again. */
  queue: { from: ['failed'], to: ['queued'] },
  /** A resend job takes the queued attempt. */
  claim: { from: ['queued'], to: ['sending'] },
  /** Its run was lost with its worker: what that worker left sending or queued ends failed. */
  loseWithRun: { from: ['sending', 'queued'], to: ['failed'] },
  /** A resend's worker went missing (its run long finished): the sending attempt ends failed. */
  abandon: { from: ['sending'], to: ['failed'] },
} as const satisfies Record<string, Transition<AttemptStatus>>;

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
  createdAt: Date;
  updatedAt: Date;
}
