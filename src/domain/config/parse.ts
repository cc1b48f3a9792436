/**
 * Reading configuration files safely: js-yaml's core schema (no custom tags, no !!js types, no
 * timestamps turned into dates), duplicate keys refused, at most MAX_ALIASES aliases per document
 * (a "billion laughs" document is refused, not expanded), merge keys (`<<`) refused clearly,
 * `__proto__` and `constructor` plain keys that end up refused as unknown fields. Lines come from
 * the parser's event stream: each document's first line and the line of every field, so an error
 * can say where it is.
 */
import { CORE_SCHEMA, loadAll, parseEvents, EVENT_ID, getScalarValue, type Event } from 'js-yaml';

/** Aliases (`*name`) one document may use. */
export const MAX_ALIASES = 100;

export interface ParsedDocument {
  /** The document's value. */
  value: unknown;
  /** The line the document starts on (1-based). */
  line: number;
  /** The line of each value by dotted path (kind, metadata.name, spec.schedule.cron, spec.deliveries.0.channel). */
  lines: Map<string, number>;
}

export class YamlError extends Error {
  constructor(message: string, readonly line: number | null) { super(message); this.name = 'YamlError'; }
}

/** 1-based line of a 0-based offset. */
function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid; else hi = mid - 1;
  }
  return lo + 1;
}

type Frame = { kind: 'mapping'; path: string; key: string | null } | { kind: 'sequence'; path: string; index: number };

/** The documents' first lines and the line of each value by path, from the parser's events. */
function linesOf(text: string, events: Event[]): Array<{ line: number; lines: Map<string, number> }> {
  const starts = [0];
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const docs: Array<{ line: number; lines: Map<string, number> }> = [];
  let stack: Frame[] = [];
  let current: { line: number; lines: Map<string, number> } | undefined;
  const join = (base: string, part: string) => (base === '' ? part : `${base}.${part}`);
  /** Where the next value goes, and moves the container on. */
  const place = (offset: number): string | null => {
    const top = stack.at(-1);
    if (!top || !current) return '';
    if (top.kind === 'sequence') {
      const path = join(top.path, String(top.index));
      top.index += 1;
      if (offset >= 0) current.lines.set(path, lineAt(starts, offset));
      return path;
    }
    if (top.key === null) return null; // a key comes next
    const path = join(top.path, top.key);
    top.key = null;
    if (offset >= 0 && !current.lines.has(path)) current.lines.set(path, lineAt(starts, offset));
    return path;
  };
  for (const e of events) {
    if (e.type === EVENT_ID.DOCUMENT) {
      current = { line: 0, lines: new Map() };
      docs.push(current);
      stack = [];
    } else if (e.type === EVENT_ID.MAPPING || e.type === EVENT_ID.SEQUENCE) {
      if (current && current.line === 0 && e.start >= 0) current.line = lineAt(starts, e.start);
      const path = place(e.start) ?? '';
      stack.push(e.type === EVENT_ID.MAPPING ? { kind: 'mapping', path, key: null } : { kind: 'sequence', path, index: 0 });
    } else if (e.type === EVENT_ID.SCALAR) {
      if (current && current.line === 0 && e.valueStart >= 0) current.line = lineAt(starts, e.valueStart);
      const top = stack.at(-1);
      if (top?.kind === 'mapping' && top.key === null) {
        top.key = getScalarValue(text, e);
        // The key's own line stands for its value until the value says otherwise (a block below it).
        if (current && e.valueStart >= 0) current.lines.set(join(top.path, top.key), lineAt(starts, e.valueStart));
      } else {
        place(e.valueStart);
      }
    } else if (e.type === EVENT_ID.ALIAS) {
      place(e.anchorStart);
    } else if (e.type === EVENT_ID.POP) {
      stack.pop();
    }
  }
  return docs.map((d) => ({ line: d.line === 0 ? 1 : d.line, lines: d.lines }));
}

/** Every value of a document, aliases followed, with a budget: a document that expands past it is refused. */
function checkShape(value: unknown, budget = { nodes: 200_000 }): void {
  if (--budget.nodes < 0) throw new YamlError('the document is too large once its aliases are expanded', null);
  if (Array.isArray(value)) { for (const v of value) checkShape(v, budget); return; }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '<<') throw new YamlError('merge keys (<<) are not supported: write the fields out', null);
      checkShape(v, budget);
    }
  }
}

/** Parses multi-document YAML; throws YamlError (with the line where known) on anything unsafe or malformed. */
export function parseDocuments(text: string, filename?: string): ParsedDocument[] {
  let values: unknown[];
  let events: Event[];
  try {
    events = parseEvents(text, { ...(filename ? { filename } : {}), maxDepth: 64 });
    values = [];
    loadAll(text, (doc) => { values.push(doc); }, { schema: CORE_SCHEMA, json: false, maxAliases: MAX_ALIASES, ...(filename ? { filename } : {}) });
  } catch (err) {
    const e = err as { reason?: string; message?: string; mark?: { line?: number } };
    const line = typeof e.mark?.line === 'number' ? e.mark.line + 1 : null;
    throw new YamlError(`${e.reason ?? String(e.message).split('\n')[0]}`, line);
  }
  const lines = linesOf(text, events);
  const docs: ParsedDocument[] = [];
  values.forEach((value, i) => {
    const at = lines[i] ?? { line: 1, lines: new Map<string, number>() };
    // An empty document (a trailing ---) is nothing.
    if (value === null || value === undefined) return;
    try {
      checkShape(value);
    } catch (err) {
      throw new YamlError((err as Error).message, at.line);
    }
    docs.push({ value, line: at.line, lines: at.lines });
  });
  return docs;
}
