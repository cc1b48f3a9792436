/**
 * A report's deliveries: an ordered list, each naming a channel and its own settings (the ones
 * every channel understands: attach, link, inline_rows, send_when_skipped, subject, body and
 * csv_formula_safe, on by default, for csv files; plus the plugin's fields such as email's
 * to/cc/bcc). Templates are checked when saved; the preview renders a delivery's message with the
 * report's latest result (or sample data) without sending it.
 */
import type { Clock } from '../../core/clock.js';
import { notFound, validationFailed, type FieldProblem } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Secrets } from '../../core/secrets.js';
import { openSecrets } from '../channels/channel-settings.js';
import type { ChannelPlugins } from '../channels/channels-service.js';
import type { DeliveryRecord, DeliverySettings, RenderedMessage, ResultFormat } from '../channels/model.js';
import type { ChannelsRepo, DeliveriesRepo } from '../channels/ports.js';
import type { SchemaCheck } from '../connections/ports.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import type { SecurityEventsRepo } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';
import type { RunRecord } from '../runs/model.js';
import type { DeliverySender } from './sender.js';
import type { RunContext } from '../runs/engine-ports.js';
import { checkTemplate, DEFAULT_BODY, DEFAULT_SUBJECT } from './templates.js';
import { DEFAULT_LINK_DAYS, MAX_LINK_DAYS } from '../links/model.js';

/** The wire form of delivery settings (snake_case), as the API takes and shows them. */
export type DeliverySettingsInput = Record<string, unknown>;

const COMMON = new Set(['attach', 'link', 'inline_rows', 'send_when_skipped', 'csv_formula_safe', 'subject', 'body']);
const FORMATS: ResultFormat[] = ['csv', 'xlsx', 'json'];

export interface DeliveryContextSource {
  runContext(reportId: string, createdBy: string | null): Promise<RunContext | undefined>;
  /** The report's newest finished run that has a result file. */
  latestResultRun(reportId: string): Promise<RunRecord | undefined>;
}

export function deliverySettingsView(s: DeliverySettings): Record<string, unknown> {
  return {
    attach: s.attach,
    link: s.link ? { format: s.link.format, expires_in_days: s.link.expiresInDays } : null,
    inline_rows: s.inlineRows,
    send_when_skipped: s.sendWhenSkipped,
    csv_formula_safe: s.csvFormulaSafe,
    subject: s.subject,
    body: s.body,
    ...s.target,
  };
}

/** Sample data for previews of reports that have not run yet. */
function sampleRun(reportId: string, now: Date): RunRecord {
  return {
    id: '00000000-0000-0000-0000-000000000000', reportId, trigger: 'manual', status: 'success', deliver: true, slot: null,
    parameters: {}, condition: null, conditionMet: null, queryVersion: null, rowCount: 3,
    columns: [{ name: 'region', type: 'text' }, { name: 'orders', type: 'int8' }, { name: 'revenue', type: 'numeric' }],
    sample: [['EU', 120, '15320.50'], ['US', 98, '12877.00'], ['APAC', 41, '5120.75']],
    steps: [], error: null, resultKey: null, resultBytes: null, resultHash: null, attempts: 0, createdBy: null,
    createdAt: now, startedAt: now, finishedAt: now, cancelRequestedAt: null, deliveringSince: null,
  };
}

export function createDeliveriesService(deps: {
  /** Reads; changes go through the unit of work, with their audit record. */
  store: DeliveriesRepo;
  uow: UnitOfWork;
  channels: Pick<ChannelsRepo, 'find'>;
  plugins: ChannelPlugins;
  secrets: Secrets;
  checkSchema: SchemaCheck;
  context: DeliveryContextSource;
  sender: Pick<DeliverySender, 'compose'>;
  clock: Clock;
}) {
  const { store, clock } = deps;

  /** Checks wire settings for a channel and answers the domain's form. */
  async function settingsFor(channelId: string, input: DeliverySettingsInput): Promise<{ settings: DeliverySettings; channelName: string }> {
    const channel = await deps.channels.find(channelId);
    if (!channel) throw validationFailed([{ field: 'channel_id', code: 'validation.invalid', message: 'is not a channel' }]);
    const plugin = deps.plugins.channel(channel.type);
    if (!plugin) throw validationFailed([{ field: 'channel_id', code: 'validation.invalid', message: `its type ${channel.type} is not installed` }]);
    const problems: FieldProblem[] = [];
    const caps = new Set(plugin.manifest.capabilities);
    const attach = input.attach ?? null;
    if (attach !== null && !FORMATS.includes(attach as ResultFormat)) problems.push({ field: 'settings.attach', code: 'validation.enum', message: 'must be csv, xlsx, json or null' });
    else if (attach !== null && !caps.has('attachments')) problems.push({ field: 'settings.attach', code: 'delivery.channel_cannot', message: `a ${channel.type} channel cannot send attachments` });
    if (attach === null && !caps.has('inline_table') && !caps.has('links')) {
      problems.push({ field: 'settings.attach', code: 'validation.required', message: `a ${channel.type} delivery stores the result as a file: choose csv, xlsx or json` });
    }
    let link: DeliverySettings['link'] = null;
    if (input.link !== undefined && input.link !== null) {
      const l = input.link as { format?: unknown; expires_in_days?: unknown };
      const days = l.expires_in_days ?? DEFAULT_LINK_DAYS;
      if (!caps.has('links')) problems.push({ field: 'settings.link', code: 'delivery.channel_cannot', message: `a ${channel.type} channel cannot send links` });
      else if (!FORMATS.includes(l.format as ResultFormat)) problems.push({ field: 'settings.link.format', code: 'validation.enum', message: 'must be csv, xlsx or json' });
      else if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_LINK_DAYS) {
        problems.push({ field: 'settings.link.expires_in_days', code: 'validation.range', message: `must be an integer from 1 to ${MAX_LINK_DAYS}` });
      } else link = { format: l.format as ResultFormat, expiresInDays: days };
    }
    const inlineRows = input.inline_rows ?? 0;
    if (typeof inlineRows !== 'number' || !Number.isInteger(inlineRows) || inlineRows < 0 || inlineRows > 100) {
      problems.push({ field: 'settings.inline_rows', code: 'validation.range', message: 'must be an integer from 0 to 100' });
    } else if (inlineRows > 0 && !caps.has('inline_table')) {
      problems.push({ field: 'settings.inline_rows', code: 'delivery.channel_cannot', message: `a ${channel.type} channel cannot show a table` });
    }
    const sendWhenSkipped = input.send_when_skipped ?? false;
    if (typeof sendWhenSkipped !== 'boolean') problems.push({ field: 'settings.send_when_skipped', code: 'validation.type', message: 'must be a boolean' });
    const csvFormulaSafe = input.csv_formula_safe ?? true;
    if (typeof csvFormulaSafe !== 'boolean') problems.push({ field: 'settings.csv_formula_safe', code: 'validation.type', message: 'must be a boolean' });
    const subject = input.subject ?? DEFAULT_SUBJECT;
    const body = input.body ?? DEFAULT_BODY;
    for (const [name, value, max] of [['subject', subject, 1000], ['body', body, 20000]] as const) {
      if (typeof value !== 'string') { problems.push({ field: `settings.${name}`, code: 'validation.type', message: 'must be a string' }); continue; }
      if (value.length > max) { problems.push({ field: `settings.${name}`, code: 'validation.range', message: `must be at most ${max} characters` }); continue; }
      try { checkTemplate(value, `settings.${name}`); } catch (err) { problems.push(...((err as { extras?: { errors?: FieldProblem[] } }).extras?.errors ?? [])); }
    }
    const target = Object.fromEntries(Object.entries(input).filter(([k]) => !COMMON.has(k)));
    problems.push(...deps.checkSchema(plugin.deliverySchema, target, 'settings'));
    if (plugin.checkDelivery && problems.length === 0) {
      problems.push(...plugin.checkDelivery({ target, attach: attach as string | null }, { ...channel.settings, ...openSecrets(channel, deps.secrets) }));
    }
    if (problems.length > 0) throw validationFailed(problems);
    return {
      channelName: channel.name,
      settings: {
        attach: attach as ResultFormat | null, link, inlineRows: inlineRows as number, sendWhenSkipped: sendWhenSkipped as boolean,
        csvFormulaSafe: csvFormulaSafe as boolean,
        subject: subject as string, body: body as string, target,
      },
    };
  }

  const audit = (events: SecurityEventsRepo, type: 'delivery.created' | 'delivery.updated' | 'delivery.deleted', actor: Actor, d: { id: string; reportId: string; channelId: string }, channelName: string | null) =>
    recordSecurityEvent(events, {
      type, actor, userId: actor.userId ?? null, target: { type: 'delivery', id: d.id },
      details: { report_id: d.reportId, channel_id: d.channelId, ...(channelName ? { channel: channelName } : {}) },
    }, clock);

  const reportExists = async (reportId: string) => {
    if (!(await deps.context.runContext(reportId, null))) throw notFound('report');
  };

  return {
    async list(reportId: string): Promise<DeliveryRecord[]> {
      await reportExists(reportId);
      return store.list(reportId);
    },

    async create(reportId: string, input: { channelId: string; position?: number | undefined; settings: DeliverySettingsInput }, actor: Actor): Promise<DeliveryRecord> {
      await reportExists(reportId);
      const { settings, channelName } = await settingsFor(input.channelId, input.settings);
      return deps.uow.run(async (tx) => {
        const row = await tx.deliveries.insert({ id: newId(), reportId, channelId: input.channelId, position: input.position, settings, now: clock.now() });
        await audit(tx.securityEvents, 'delivery.created', actor, row, channelName);
        return row;
      });
    },

    async replace(reportId: string, id: string, input: { channelId: string; position?: number | undefined; settings: DeliverySettingsInput; version: number }, actor: Actor): Promise<DeliveryRecord> {
      if (!(await store.find(reportId, id))) throw notFound('delivery');
      const { settings, channelName } = await settingsFor(input.channelId, input.settings);
      return deps.uow.run(async (tx) => {
        const row = await tx.deliveries.replace(reportId, id, input.version, { channelId: input.channelId, position: input.position, settings }, clock.now());
        await audit(tx.securityEvents, 'delivery.updated', actor, row, channelName);
        return row;
      });
    },

    async delete(reportId: string, id: string, actor: Actor): Promise<void> {
      const row = await store.find(reportId, id);
      if (!row) throw notFound('delivery');
      await deps.uow.run(async (tx) => {
        if (!(await tx.deliveries.delete(reportId, id))) throw notFound('delivery');
        await audit(tx.securityEvents, 'delivery.deleted', actor, row, null);
      });
    },

    /** Renders without sending: a saved delivery, or unsaved settings for a channel. */
    async preview(input: { reportId: string; deliveryId?: string | undefined; channelId?: string | undefined; settings?: DeliverySettingsInput | undefined })
      : Promise<RenderedMessage & { source: 'latest_run' | 'sample'; runId: string | null; channelType: string; recipients: string[] }> {
      const context = await deps.context.runContext(input.reportId, null);
      if (!context) throw notFound('report');
      let delivery: DeliveryRecord;
      if (input.deliveryId) {
        const saved = await store.find(input.reportId, input.deliveryId);
        if (!saved) throw notFound('delivery');
        delivery = saved;
      } else {
        if (!input.channelId) throw validationFailed([{ field: 'channel_id', code: 'validation.required', message: 'give delivery_id, or channel_id and settings' }]);
        const { settings } = await settingsFor(input.channelId, input.settings ?? {});
        const channel = (await deps.channels.find(input.channelId))!;
        delivery = { id: newId(), reportId: input.reportId, channelId: channel.id, channelType: channel.type, channelName: channel.name, position: 1, settings, version: 1, createdAt: clock.now(), updatedAt: clock.now() };
      }
      const latest = await deps.context.latestResultRun(input.reportId);
      const run = latest ?? sampleRun(input.reportId, clock.now());
      const status = run.conditionMet === false ? 'skipped' : 'success';
      const { rendered } = await deps.sender.compose(run, context, delivery, status, null);
      const target = delivery.settings.target;
      const recipients = deps.plugins.channel(delivery.channelType)?.recipientsOf?.(target) ?? [];
      return { ...rendered, source: latest ? 'latest_run' : 'sample', runId: latest?.id ?? null, channelType: delivery.channelType, recipients };
    },
  };
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;
