/**
 * The channel interface: what a delivery-destination plugin (src/plugins/email, slack, teams,
 * webhook, s3) implements. The domain renders the message (Liquid templates, inline table,
 * attachment or link) and hands it over with the channel's settings, secrets already opened;
 * the plugin only speaks its peer's protocol.
 *
 * A plugin never imports the store, a service or infra: what it needs from outside (the guarded
 * HTTP client, the clock) arrives in the ChannelContext. Failures are ChannelSendError with
 * `transient` telling the domain whether a retry may help (timeouts, connection errors, 5xx,
 * 429) or not (4xx, a refused address, bad settings).
 */
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { CellValue } from './connector.js';
import type { JsonSchema, Plugin } from './plugin.js';
import type { FieldProblem } from '../../core/errors.js';

/** The file a message carries: the run's result in the delivery's format. */
export interface MessageAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** What the domain hands a channel to send: everything already rendered and capped. */
export interface ChannelMessage {
  /** Rendered subject template (one line). */
  subject: string;
  /** Rendered body template (plain text; Markdown-ish line breaks kept). */
  body: string;
  /** The first rows as a table, when the delivery asks for an inline table (at most 100 rows). */
  table: { columns: string[]; rows: CellValue[][]; totalRows: number } | null;
  attachment: MessageAttachment | null;
  /** A shared link to the result, when the delivery asks for one (links issue). */
  link: { url: string; expiresAt: Date } | null;
  /**
   * Set on a system alert (not a report's delivery): what happened, for structured receivers
   * (the webhook sends type system.alert with it instead of report and run).
   */
  alert?: {
    event: 'opened' | 'repeated' | 'resolved' | 'test';
    kind: string; fingerprint: string; severity: string; message: string;
    since: Date; resolvedAt: Date | null; resource: { type: string; id: string; url: string } | null;
  };
  /** Facts structured receivers (webhook JSON, S3 object key) use. */
  facts: {
    reportId: string;
    reportTitle: string;
    runId: string;
    /** The run's status at sending time: success (or skipped when the delivery sends on skipped). */
    runStatus: string;
    trigger: string;
    rowCount: number;
    /** When the run was created (its slot for scheduled runs). */
    runAt: Date;
    /** The run's address in Herald (SVC_PUBLIC_URL based). */
    runUrl: string;
    /** The result as JSON-ready values (columns and at most 1,000 rows), for receivers that embed data. */
    columns: string[];
  };
}

/** The per-delivery part of the settings a plugin reads (e.g. email's to/cc/bcc). */
export type DeliveryTarget = Record<string, unknown>;

export interface OutboundRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT';
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Default: the context's timeoutMs. */
  timeoutMs?: number;
  /**
   * The headers (lower-case names) that may follow a redirect to another origin; every other one
   * (credentials, a channel's own headers) is dropped there, as browsers and curl drop
   * Authorization. Default: content-type only.
   */
  crossOriginHeaders?: readonly string[];
  /** Refuse a redirect to another origin (outbound.refused, not transient) instead of following it. */
  refuseCrossOrigin?: boolean;
  /** How much of the answer's body is kept (the rest is dropped). Default 64 KiB. */
  maxBodyBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  /** The answer's body as text, at most the request's maxBodyBytes (64 KiB unless it says; the rest is dropped). */
  body: string;
}

/**
 * Requests to other hosts, guarded: a destination that resolves to a loopback, private,
 * link-local or metadata address is refused at connect time (redirects included) unless
 * SVC_OUTBOUND_ALLOW allows it. Refusals throw ChannelSendError('outbound.refused', permanent);
 * time-outs and connection errors throw ChannelSendError transient.
 */
export interface OutboundHttp {
  request(req: OutboundRequest, signal: AbortSignal): Promise<OutboundResponse>;
  /**
   * Fresh Node agents with the same guard, for SDKs that take agents (the S3 client), which may
   * destroy them when done. With the URL they will reach, a host name SVC_OUTBOUND_ALLOW names is let through.
   */
  agents(url?: string): { http: HttpAgent; https: HttpsAgent };
  /** Whether a URL's host is named by SVC_OUTBOUND_ALLOW (then plain http may be used). */
  allowsHost(url: string): boolean;
}

export interface ChannelContext {
  signal: AbortSignal;
  /** The whole send's time limit (each request's default). */
  timeoutMs: number;
  http: OutboundHttp;
  /**
   * The stable id of this delivery attempt: the same on every resend of the attempt, so peers can
   * drop duplicates (the webhook-id header, the email Message-ID, the S3 object metadata).
   */
  messageId: string;
  now(): Date;
}

/** What a peer answered to a successful send. */
export interface SendOutcome {
  /** The peer's HTTP status (webhook, chats, S3) or SMTP reply code. */
  statusCode: number | null;
  /** The peer's id of what it received (SMTP Message-ID, S3 ETag or key, Slack ts). */
  peerMessageId: string | null;
  /** One line of what happened, without secrets ("250 OK queued as 12AB", "s3://bucket/key"). */
  detail: string | null;
}

/** A send that did not work (declared in the kernel, so the outbound HTTP adapter throws it too). */
export { ChannelSendError } from '../../core/errors.js';

export interface ChannelPlugin extends Plugin<'channel'> {
  /**
   * JSON Schema of what a delivery adds for this channel (email: to, cc, bcc). The common
   * delivery settings (attach, link, inline_rows, send_when_skipped, csv_formula_safe, subject, body) are the
   * domain's; this schema covers only the plugin's own.
   */
  deliverySchema: JsonSchema;
  /**
   * The plugin's own checks beyond the JSON Schema (already checked): throws validation.failed
   * with fields under `settings.` (e.g. settings.url must be https unless allowed).
   */
  validate(settings: Record<string, unknown>, http: Pick<OutboundHttp, 'allowsHost'>): void;
  /**
   * The plugin's own checks of a delivery, once the common settings and `deliverySchema` hold:
   * `channelSettings` are the channel's settings with its secrets open. Answers problems with
   * fields under `settings.` (email: at least one recipient; slack: attachments need a bot token).
   */
  checkDelivery?(delivery: { target: Record<string, unknown>; attach: string | null }, channelSettings: Record<string, unknown>): FieldProblem[];
  /** Sends one message. Throws ChannelSendError. Honours ctx.signal. */
  send(settings: Record<string, unknown>, target: DeliveryTarget, message: ChannelMessage, ctx: ChannelContext): Promise<SendOutcome>;
  /**
   * Whether the delivery needs target settings of its own to send (email without a single
   * recipient cannot). Test sends use `testTarget` to address only the caller.
   */
  testTarget(callerEmail: string): DeliveryTarget;
  /**
   * The people a delivery's message goes to (email: its to, cc and bcc), for previews. Plugins
   * with the `recipients` capability have it: their test sends and test runs go to the caller
   * alone; the others' test runs are recorded as previews.
   */
  recipientsOf?(target: DeliveryTarget): string[];
}

/** The capability of plugins whose messages go to people a delivery names (see recipientsOf). */
export const RECIPIENTS_CAPABILITY = 'recipients';

/** Whether the plugin's messages go to people a delivery names, so a test can go to the caller alone. */
export const sendsToPeople = (plugin: Pick<ChannelPlugin, 'manifest'>): boolean => plugin.manifest.capabilities.includes(RECIPIENTS_CAPABILITY);
