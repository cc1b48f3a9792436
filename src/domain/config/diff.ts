/**
 * Comparing a document's spec with a stored resource's: a canonical form for equality and the
 * plan's hash, `covers` (a document says what it manages: a field it leaves out keeps its stored
 * or default value), and the field-level diff (objects walked into, anything else compared whole,
 * secrets only as set or unchanged).
 */
import type { ConfigDocument, FieldChange } from './model.js';
import type { Spec } from './specs.js';

export const isKeep = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v)
  && Object.keys(v).length === 1 && (v as Record<string, unknown>).configured === true;
/** The line of a document's field, or of the document. */
export const lineOf = (d: ConfigDocument, path: string): number => d.lines.get(path) ?? d.line ?? 1;
export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value in a canonical form, for comparing and hashing: object keys sorted. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isPlainObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}
export const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

/**
 * Whether a document's value is what is stored, reading only what the document says: a field it
 * leaves out of an object (a delivery's settings, a parameter's `required`) keeps its stored or
 * default value, so a document that writes less than an export is no perpetual change.
 */
export function covers(desired: unknown, stored: unknown): boolean {
  if (isPlainObject(desired) && isPlainObject(stored)) return Object.keys(desired).every((k) => covers(desired[k], stored[k]));
  if (Array.isArray(desired) && Array.isArray(stored)) return desired.length === stored.length && desired.every((d, i) => covers(d, stored[i]));
  return same(desired, stored);
}

/** Field by field: plain objects are walked into (a settings object), anything else compared whole. */
export function diffSpec(desired: Spec, current: Spec | undefined, secrets: Map<string, 'set' | 'unchanged'>, base = ''): FieldChange[] {
  const out: FieldChange[] = [];
  for (const key of Object.keys(desired).sort()) {
    const path = base === '' ? key : `${base}.${key}`;
    const after = desired[key];
    const before = current?.[key];
    const secret = secrets.get(path);
    if (secret) {
      if (secret === 'set') out.push({ path: `spec.${path}`, secret });
      continue;
    }
    if (isPlainObject(after) && isPlainObject(before) && key !== 'condition' && key !== 'schedule' && key !== 'parameters') {
      out.push(...diffSpec(after, before, secrets, path));
    } else if (current === undefined || !covers(after, before)) {
      out.push({ path: `spec.${path}`, ...(current !== undefined && before !== undefined ? { before } : {}), after });
    }
  }
  return out;
}
