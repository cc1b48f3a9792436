/**
 * The assistant: proposes a query or a schedule, never saves or runs anything.
 *
 * - Schedules: Herald's own phrase parser first (no provider needed); the provider, when one is
 *   on, only for phrases it does not know, and its cron is checked by the schedules' validation.
 *   The description and the next times are Herald's own.
 * - Queries: the connection's cached schema (names and types; sample values only when the admin
 *   allowed them), trimmed to a budget by relevance and fenced as data; the draft is checked
 *   (one read-only statement, tables and columns against the schema, parameters, EXPLAIN on the
 *   connection's read-only path) and, failing, repaired once with the errors; then it comes back
 *   with its validation whatever it says.
 *
 * Prompts and drafts are logged at debug at most, never with row values; each call is counted by
 * kind, provider and outcome.
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, validationFailed } from '../../core/errors.js';
import type { Log } from '../../core/log.js';
import { describeSchedule, nextOccurrences, scheduleProblems } from '../schedules/schedule.js';
import type { SchemaTable } from '../plugins/connector.js';
import type { AiSettingsService } from './ai-settings.js';
import { schemaContext } from './context.js';
import { checkSql, type CheckError, type Dialect } from './sql-check.js';
import { parseSchedulePhrase } from './schedule-phrases.js';
import { AiError, type AiPlugin, type AiProviderSettings, type AiRequest, type OutboundAi } from './ports.js';
import { QUERY_OUTPUT, SCHEDULE_OUTPUT, querySystem, queryUserMessage, repairMessage, SCHEDULE_SYSTEM, type QueryDraft } from './prompts.js';

export interface GenerateInput {
  kind: 'query' | 'schedule';
  prompt: string;
  connectionId?: string | undefined;
  sql?: string | undefined;
  timezone?: string | undefined;
}

export interface QueryProposal {
  kind: 'query';
  source: 'provider';
  sql: string;
  parameters: Array<{ name: string; type: 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'timestamp'; description?: string }>;
  validation: { ok: boolean; errors: CheckError[]; explained: boolean };
  repaired: boolean;
  explanation: string;
}

export interface ScheduleProposal {
  kind: 'schedule';
  source: 'phrases' | 'provider';
  schedule: { cron: string; timezone: string };
  description: string;
  next: Date[];
  explanation: string;
}

/** The connection side: its dialect and cached schema, EXPLAIN and (when allowed) a few sample rows. */
export interface AssistantConnections {
  dialectOf(connectionId: string): Promise<Dialect>;
  /** The cached schema, introspected first when there is none yet. */
  tables(connectionId: string): Promise<SchemaTable[]>;
  /** EXPLAIN (never ANALYZE) on the connection's read-only path, parameters bound as null; the database's error when it refuses. */
  explain(connectionId: string, sql: string, signal: AbortSignal): Promise<{ ok: true } | { ok: false; message: string }>;
  /** A few rows of each table, values cut short: only with send_sample_values. */
  samples(connectionId: string, tables: SchemaTable[], signal: AbortSignal): Promise<string>;
}

const PARAMETER_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'date', 'timestamp']);
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The draft's parameters as its SQL uses them: every placeholder declared (string by default), nothing else. */
export function parametersOf(draft: QueryDraft): QueryProposal['parameters'] {
  const used = [...new Set([...draft.sql.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
  return used.map((name) => {
    const declared = (draft.parameters ?? []).find((p) => p.name === name);
    const type = declared && PARAMETER_TYPES.has(declared.type) ? declared.type : 'string';
    return { name, type: type as QueryProposal['parameters'][number]['type'], ...(declared?.description ? { description: declared.description } : {}) };
  });
}

function isDraft(v: unknown): v is QueryDraft {
  const d = v as QueryDraft;
  return typeof d === 'object' && d !== null && typeof d.sql === 'string' && d.sql.trim() !== '' && typeof d.explanation === 'string'
    && (d.parameters === undefined || Array.isArray(d.parameters));
}

export function createAssistantService(deps: {
  ai: Pick<AiSettingsService, 'active' | 'get'>;
  connections: AssistantConnections;
  outbound: OutboundAi;
  clock: Clock;
  log: Log;
  /** One proposal asked for by this user; false past the per-user limit. */
  quota(userId: string): Promise<boolean>;
  counted(kind: string, provider: string, outcome: string): void;
  /** How the provider's last call went (the alerts' ai.failing problem reads it). */
  providerHealth?(ok: boolean, error: string | null): Promise<void>;
}) {
  const log = deps.log;

  async function ask(plugin: AiPlugin, settings: AiProviderSettings, request: AiRequest): Promise<unknown> {
    try {
      const answer = await plugin.complete(settings, request, { http: deps.outbound, signal: AbortSignal.timeout(settings.timeoutMs + 2000) });
      await deps.providerHealth?.(true, null).catch(() => undefined);
      return answer.json;
    } catch (err) {
      if (err instanceof AiError) {
        // A provider that cannot be reached, refuses the key or lost the model is failing; a busy one is not.
        if (err.code !== 'ai.rate_limited' && err.code !== 'ai.bad_output') await deps.providerHealth?.(false, `${err.code}: ${err.message}`).catch(() => undefined);
        throw new DomainError(err.code, err.message, err.retryAfterMs !== null ? { retryAfterSeconds: Math.ceil(err.retryAfterMs / 1000) } : {});
      }
      throw err;
    }
  }

  async function schedule(input: GenerateInput, limit: () => Promise<void>): Promise<{ proposal: ScheduleProposal; provider: string }> {
    const timezone = input.timezone ?? 'UTC';
    const proposal = (cron: string, source: ScheduleProposal['source'], explanation: string): ScheduleProposal => {
      const s = { cron, timezone };
      return { kind: 'schedule', source, schedule: s, description: describeSchedule(s), next: nextOccurrences(s, deps.clock.now(), 5), explanation };
    };
    if (scheduleProblems({ cron: '0 0 * * *', timezone }).length > 0) {
      throw validationFailed([{ field: 'timezone', code: 'validation.invalid', message: 'is not a time zone of the IANA database (e.g. Europe/Berlin)' }]);
    }
    const parsed = parseSchedulePhrase(input.prompt);
    if ('cron' in parsed) return { proposal: proposal(parsed.cron, 'phrases', `Read "${input.prompt.trim()}" as: ${describeSchedule({ cron: parsed.cron, timezone })} (${timezone}).`), provider: 'off' };
    const active = await deps.ai.active();
    if ('off' in active) {
      throw new DomainError('ai.schedule_not_understood', 'Herald does not know this phrase, and no AI provider is on to ask. Try a phrase like "every weekday at 8am" or "on the 1st and 15th at 6am"; what cron cannot say exactly (every 90 minutes, every other week, the first Monday of the month) needs a cron of your own.');
    }
    await limit();
    const messages: AiRequest['messages'] = [{ role: 'user', content: `Time zone: ${timezone}\n<request>\n${input.prompt}\n</request>` }];
    for (let round = 0; round < 2; round += 1) {
      const json = await ask(active.plugin, active.settings, { system: SCHEDULE_SYSTEM, messages, output: SCHEDULE_OUTPUT }) as { cron?: unknown; explanation?: unknown };
      const cron = typeof json?.cron === 'string' ? json.cron.trim() : '';
      const problems: Array<{ message: string }> = cron ? scheduleProblems({ cron, timezone }).map((p) => ({ message: p.message ?? p.code })) : [{ message: 'no cron in the answer' }];
      const fields = cron.split(/\s+/);
      // Both day fields set means "either" in cron: what people ask that way (every other Friday) it never means.
      if (problems.length === 0 && fields.length === 5 && fields[2] !== '*' && fields[4] !== '*') {
        problems.push({ message: 'it restricts both the day of the month and the day of the week, which cron joins with OR (a day matching either runs)' });
      }
      if (problems.length === 0) {
        return { proposal: proposal(cron, 'provider', `Proposed by the AI provider for "${input.prompt.trim()}"; Herald reads it as: ${describeSchedule({ cron, timezone })} (${timezone}). Check the next times.`), provider: active.provider };
      }
      messages.push({ role: 'assistant', content: JSON.stringify(json) }, { role: 'user', content: `That cron is not valid here: ${problems.map((p) => p.message).join('; ')}. Answer a valid five-field cron.` });
    }
    throw new DomainError('ai.schedule_not_understood', 'Neither Herald nor the provider could make a valid schedule of this phrase. Rephrase it, or write the cron.');
  }

  async function query(input: GenerateInput, limit: () => Promise<void>): Promise<{ proposal: QueryProposal; provider: string }> {
    if (!input.connectionId) throw validationFailed([{ field: 'connection_id', code: 'validation.required', message: 'a query draft needs the connection it is for' }]);
    const connectionId = input.connectionId;
    const active = await deps.ai.active();
    if ('off' in active) throw new DomainError('ai.disabled', active.off);
    await limit();
    const dialect = await deps.connections.dialectOf(connectionId);
    const tables = await deps.connections.tables(connectionId);
    const context = schemaContext(tables, `${input.prompt} ${input.sql ?? ''}`);
    const signal = AbortSignal.timeout(active.settings.timeoutMs * 3);
    const samples = active.sendSampleValues ? await deps.connections.samples(connectionId, context.tables.slice(0, 5), signal) : null;
    const messages: AiRequest['messages'] = [{ role: 'user', content: queryUserMessage(context, samples, input.sql, input.prompt) }];
    const request = (): AiRequest => ({ system: querySystem(dialect), messages, output: QUERY_OUTPUT });

    const validate = async (draft: QueryDraft): Promise<QueryProposal['validation']> => {
      const errors = checkSql(draft.sql, dialect, tables);
      let explained = false;
      if (errors.length === 0) {
        const explain = await deps.connections.explain(connectionId, draft.sql, signal);
        if (explain.ok) explained = true;
        else errors.push({ code: 'explain.failed', message: explain.message });
      }
      return { ok: errors.length === 0, errors, explained };
    };

    let json = await ask(active.plugin, active.settings, request());
    if (!isDraft(json)) throw new DomainError('ai.bad_output', 'The provider answered something that is not a query draft (sql and explanation)');
    let draft = json;
    let validation = await validate(draft);
    let repaired = false;
    if (!validation.ok) {
      // One repair round: the provider sees its draft and what was wrong with it.
      log.debug('assistant draft failed validation; asking for a repair', { codes: validation.errors.map((e) => e.code) });
      messages.push({ role: 'assistant', content: JSON.stringify(draft) }, { role: 'user', content: repairMessage(validation.errors) });
      json = await ask(active.plugin, active.settings, request());
      if (isDraft(json)) {
        draft = json;
        validation = await validate(draft);
        repaired = true;
      }
    }
    return {
      provider: active.provider,
      proposal: { kind: 'query', source: 'provider', sql: draft.sql, parameters: parametersOf(draft), validation, repaired, explanation: draft.explanation },
    };
  }

  return {
    async status(): Promise<{ available: boolean; provider: string; kinds: Array<'query' | 'schedule'>; reason: string | null }> {
      const active = await deps.ai.active();
      if ('off' in active) {
        return { available: false, provider: (await deps.ai.get()).provider, kinds: ['schedule'], reason: active.off };
      }
      return { available: true, provider: active.provider, kinds: ['query', 'schedule'], reason: null };
    },

    async generate(input: GenerateInput, caller: { userId: string | null }): Promise<QueryProposal | ScheduleProposal> {
      // Only what asks the provider counts against the per-user limit: Herald's own phrases are free.
      const limit = async () => {
        if (!(await deps.quota(caller.userId ?? 'anonymous'))) {
          throw new DomainError('rate_limited', 'Too many proposals asked of the AI provider in the last minute', { retryAfterSeconds: 60 });
        }
      };
      log.debug('assistant asked', { kind: input.kind, prompt_chars: input.prompt.length });
      let provider = 'off';
      try {
        const done = input.kind === 'schedule' ? await schedule(input, limit) : await query(input, limit);
        provider = done.provider;
        deps.counted(input.kind, provider, done.proposal.kind === 'query' && !done.proposal.validation.ok ? 'invalid' : 'ok');
        return done.proposal;
      } catch (err) {
        deps.counted(input.kind, provider, err instanceof DomainError ? err.code : 'error');
        throw err;
      }
    },
  };
}

export type AssistantService = ReturnType<typeof createAssistantService>;
