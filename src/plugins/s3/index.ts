/**
 * The S3 channel: stores the result file in an S3-compatible bucket under an expanded prefix.
 * Requests go through the guarded agents (a loopback, private or metadata endpoint is refused
 * unless SVC_OUTBOUND_ALLOW allows it) with the send's time limit; the SDK does not retry (the
 * domain does, inside the attempt). The object carries the attempt id as metadata, and a resend
 * writes the same key again. The AWS SDK is loaded on the first send (it is the largest package
 * Herald has, and most installations never send to a bucket).
 */
import type { S3ServiceException } from '@aws-sdk/client-s3';
import { validationFailed } from '../../core/errors.js';
import { slugOf } from '../../core/slug.js';
import { ChannelSendError, type ChannelMessage, type ChannelPlugin } from '../../domain/plugins/channel.js';
import { urlProblem } from '../shared/http-answer.js';
import { s3Manifest } from './manifest.js';

const PLACEHOLDERS = new Set(['report_id', 'run_id', 'report_title', 'date', 'time']);


/** The object key of a message: the prefix with its placeholders filled, then the file name. */
export function objectKey(prefix: string, message: ChannelMessage, filename: string): string {
  const f = message.facts;
  const iso = f.runAt.toISOString();
  const values: Record<string, string> = {
    report_id: f.reportId, run_id: f.runId, report_title: slugOf(f.reportTitle, 'report'), date: iso.slice(0, 10), time: iso.slice(11, 19).replaceAll(':', ''),
  };
  return `${prefix.replace(/\{([a-z_]+)\}/g, (_, name: string) => values[name] ?? '')}${filename}`;
}

function prefixProblem(prefix: unknown): string | null {
  if (typeof prefix !== 'string') return null;
  if (prefix.startsWith('/')) return 'must not start with /';
  if (prefix.split('/').includes('..')) return 'must not contain ..';
  for (const m of prefix.matchAll(/\{([^}]*)\}/g)) if (!PLACEHOLDERS.has(m[1]!)) return `{${m[1]}} is not a placeholder (${[...PLACEHOLDERS].map((p) => `{${p}}`).join(', ')})`;
  return null;
}

function failureOf(err: unknown, bucket: string, ServiceException: typeof S3ServiceException): ChannelSendError {
  const e = err as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  if (/is not allowed/i.test(e.message ?? '')) {
    return new ChannelSendError('outbound.refused', 'The bucket endpoint resolves to an address Herald may not reach (loopback, private, link-local or metadata); SVC_OUTBOUND_ALLOW can allow it', { transient: false });
  }
  if (err instanceof ServiceException) {
    const status = err.$metadata?.httpStatusCode ?? null;
    const transient = status === null || status >= 500 || status === 429 || err.name === 'SlowDown';
    const code = ['InvalidAccessKeyId', 'SignatureDoesNotMatch'].includes(err.name) ? 'delivery.auth_failed' : transient ? 'delivery.peer_error' : 'delivery.rejected';
    return new ChannelSendError(code, `The bucket ${bucket} refused the file: ${err.name}${err.message ? ` (${err.message.slice(0, 200)})` : ''}`, { transient, statusCode: status });
  }
  if (e.name === 'TimeoutError' || e.code === 'ETIMEDOUT') return new ChannelSendError('delivery.timeout', `The bucket ${bucket} did not answer in time`, { transient: true });
  return new ChannelSendError('delivery.unreachable', `The bucket ${bucket} could not be reached (${e.code ?? e.name ?? 'connection error'})`, { transient: true });
}

export const s3Channel: ChannelPlugin = {
  manifest: s3Manifest,
  deliverySchema: { type: 'object', additionalProperties: false, properties: {} },
  validate(settings, http) {
    const endpoint = settings.endpoint === undefined ? null : urlProblem(settings.endpoint, (u) => http.allowsHost(u));
    if (endpoint) throw validationFailed([{ field: 'settings.endpoint', code: 'validation.format', message: endpoint }]);
    const prefix = prefixProblem(settings.prefix);
    if (prefix) throw validationFailed([{ field: 'settings.prefix', code: 'validation.format', message: prefix }]);
  },
  testTarget: () => ({}),
  async send(settings, _target, message, ctx) {
    const bucket = settings.bucket as string;
    const attachment = message.attachment ?? {
      // A test message (no result): a small text file proves the bucket takes writes.
      filename: `herald-test-${ctx.messageId}.txt`, contentType: 'text/plain; charset=utf-8', content: Buffer.from(`${message.subject}\n\n${message.body}\n`),
    };
    const { http: httpAgent, https: httpsAgent } = ctx.http.agents(settings.endpoint as string | undefined);
    const [{ PutObjectCommand, S3Client, S3ServiceException }, { NodeHttpHandler }] = await Promise.all([import('@aws-sdk/client-s3'), import('@smithy/node-http-handler')]);
    const client = new S3Client({
      region: (settings.region as string | undefined) ?? 'us-east-1',
      ...(settings.endpoint ? { endpoint: settings.endpoint as string } : {}),
      forcePathStyle: settings.force_path_style === true,
      credentials: { accessKeyId: settings.access_key_id as string, secretAccessKey: settings.secret_access_key as string },
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler({ httpAgent, httpsAgent, connectionTimeout: ctx.timeoutMs, requestTimeout: ctx.timeoutMs }),
    });
    const key = objectKey((settings.prefix as string | undefined) ?? 'herald/{report_id}/{date}/', message, attachment.filename);
    try {
      const out = await client.send(new PutObjectCommand({
        Bucket: bucket, Key: key, Body: attachment.content, ContentType: attachment.contentType,
        Metadata: { 'herald-message-id': ctx.messageId, 'herald-run-id': message.facts.runId, 'herald-report-id': message.facts.reportId },
      }), { abortSignal: ctx.signal });
      return { statusCode: out.$metadata.httpStatusCode ?? 200, peerMessageId: out.ETag ?? null, detail: `s3://${bucket}/${key}` };
    } catch (err) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw failureOf(err, bucket, S3ServiceException);
    } finally {
      client.destroy();
    }
  },
};
