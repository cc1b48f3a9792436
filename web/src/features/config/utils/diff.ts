/**
 * Field-level changes of configuration as code (an import plan, a detached resource's drift, what
 * an attach will change), as rows a person reads: the dotted path, the value before and after as
 * short text, and what kind of change it is. Secrets are never shown: only set, unchanged or missing.
 */
export interface FieldChange {
  path: string;
  before?: unknown;
  after?: unknown;
  secret?: 'set' | 'unchanged' | 'missing';
}

export type ChangeKind = 'added' | 'removed' | 'changed' | 'secret';

export interface DiffRow {
  path: string;
  kind: ChangeKind;
  before: string | null;
  after: string | null;
  secret?: FieldChange['secret'];
}

/** A value as one line of text: strings as they are, everything else as compact JSON. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

export function diffRows(changes: FieldChange[]): DiffRow[] {
  return changes.map((c) => {
    if (c.secret) return { path: c.path, kind: 'secret', before: null, after: null, secret: c.secret };
    const hasBefore = 'before' in c && c.before !== undefined;
    const hasAfter = 'after' in c && c.after !== undefined;
    const kind: ChangeKind = hasBefore && hasAfter ? 'changed' : hasAfter ? 'added' : 'removed';
    return { path: c.path, kind, before: hasBefore ? formatValue(c.before) : null, after: hasAfter ? formatValue(c.after) : null };
  });
}
