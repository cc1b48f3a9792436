/**
 * Delivery templates: Liquid (liquidjs), sandboxed. No file system (no include/render of files),
 * own properties only, unknown filters refused, and limits on parse size, render time and memory,
 * so a template can neither read the server nor hang a worker.
 *
 * Variables (documented in openapi.yaml DeliverySettings): report {id, title, description, url},
 * run {id, status, trigger, created_at, scheduled_for, url, row_count, condition_met},
 * query {id, name, version}, columns (names), rows (objects by column name, capped), row_count,
 * link {url, expires_at} or null, instance_url.
 */
import type * as LiquidJs from 'liquidjs';
import type { Liquid } from 'liquidjs';
import { DomainError, validationFailed } from '../../core/errors.js';
import { onFirstUse } from '../../core/on-first-use.js';
import { lruMemo } from '../../core/lru.js';

const liquidjs = onFirstUse<typeof LiquidJs>('liquidjs');

export const DEFAULT_SUBJECT = '{{ report.title }}: {{ row_count }} rows';
export const DEFAULT_BODY = '{{ report.title }} ran at {{ run.created_at }} and returned {{ row_count }} rows.\n\n{{ run.url }}';

const RENDER_LIMIT_MS = 1000;
const MEMORY_LIMIT = 10_000_000;
const PARSE_LIMIT = 100_000;
/** Longest rendered subject and body. */
const MAX_SUBJECT = 1000;
const MAX_BODY = 100_000;

/** The sandboxed engine, made the first time a template is checked or rendered. */
let made: Liquid | undefined;
const engineOf = (): Liquid => (made ??= new (liquidjs().Liquid)({
  ownPropertyOnly: true,
  strictFilters: true,
  strictVariables: false,
  parseLimit: PARSE_LIMIT,
  renderLimit: RENDER_LIMIT_MS,
  memoryLimit: MEMORY_LIMIT,
  relativeReference: false,
  root: [],
  partials: [],
  layouts: [],
  fs: {
    readFileSync: () => { throw new Error('templates cannot read files'); },
    readFile: async () => { throw new Error('templates cannot read files'); },
    existsSync: () => false,
    exists: async () => false,
    contains: async () => false,
    resolve: (_root: string, file: string) => file,
    sep: '/',
  },
}));


/** Throws validation.failed on `field` when the template does not parse. */
export function checkTemplate(source: string, field: string): void {
  try {
    engineOf().parse(source);
  } catch (err) {
    throw validationFailed([{ field, code: 'validation.invalid', message: `is not a valid Liquid template: ${firstLine(err)}` }]);
  }
}

export interface TemplateVariables {
  report: { id: string; title: string; description: string | null; url: string };
  run: { id: string; status: string; trigger: string; created_at: string; scheduled_for: string | null; url: string; row_count: number; condition_met: boolean | null };
  query: { id: string; name: string; version: number | null };
  columns: string[];
  rows: Array<Record<string, unknown>>;
  row_count: number;
  link: { url: string; expires_at: string } | null;
  instance_url: string;
}

/** Renders subject and body; a failure is delivery.template_failed (permanent). */
/**
 * Parsed templates by their source, so that the deliveries of one report (every run of it, each
 * of its channels) parse theirs once: most recently used last, at most PARSED_LIMIT. A parsed
 * template holds no variables (the render limits apply on every render).
 */
const PARSED_LIMIT = 200;
const parsed = lruMemo<string, ReturnType<Liquid['parse']>>(PARSED_LIMIT);
const parsedTemplate = (source: string): ReturnType<Liquid['parse']> => parsed(source, () => engineOf().parse(source));

export async function renderTemplates(subject: string, body: string, vars: TemplateVariables): Promise<{ subject: string; body: string }> {
  try {
    // Synchronously: the templates reach no file and no asynchronous filter, so the render
    // limits hold as well and no promise is made per tag.
    const s = engineOf().renderSync(parsedTemplate(subject), vars as unknown as Record<string, unknown>) as string;
    const b = engineOf().renderSync(parsedTemplate(body), vars as unknown as Record<string, unknown>) as string;
    return { subject: s.replace(/\s+/g, ' ').trim().slice(0, MAX_SUBJECT), body: b.slice(0, MAX_BODY) };
  } catch (err) {
    throw new DomainError('delivery.template_failed', `A template could not be rendered: ${firstLine(err)}`);
  }
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 300);
}
