/** What the channels and deliveries domain knows of its records (stored by src/infra/db/stores/channels-repo.ts). */
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

export type AttemptStatus = 'sending' | 'sent' | 'failed' | 'queued' | 'preview';

export interface RenderedMessage {
  subject: string;
  body: string;
  table: { columns: string[]; rows: CellValue[][]; totalRows: number } | null;
  attachment: { filename: string; contentType: string } | null;
  link: { url: string; expiresAt: Date } | null;
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
  createdAt: Date;
  updatedAt: Date;
}
