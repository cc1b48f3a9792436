/**
 * The pure part of PluginSettingsForm: what kind of input a plugin's JSON Schema field asks for,
 * the defaults a new form starts from, and what the form sends. Secrets follow the contract: a
 * stored secret reads as {configured: true}; the form sends it only when it was typed (a string or
 * an object), null to remove it, and leaves it out to keep it. No imports, so unit tests load it
 * as it is.
 */

export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  additionalProperties?: boolean | JsonSchema;
  writeOnly?: boolean;
  'x-secret'?: boolean;
  [key: string]: unknown;
}

export type FieldKind =
  | 'secret' | 'secretMap' | 'enum' | 'string' | 'password' | 'number' | 'integer' | 'boolean'
  | 'stringList' | 'enumList' | 'object' | 'map' | 'json';

export interface SchemaField {
  name: string;
  schema: JsonSchema;
  required: boolean;
  kind: FieldKind;
}

const typeOf = (s: JsonSchema): string | undefined =>
  Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;

/** An object of string values under any name (webhook headers): drawn as name/value rows. */
const isStringMap = (s: JsonSchema): boolean =>
  typeOf(s) === 'object' && !s.properties && typeof s.additionalProperties === 'object'
  && typeOf(s.additionalProperties) === 'string';

export function kindOf(s: JsonSchema): FieldKind {
  const type = typeOf(s);
  if (s['x-secret']) return isStringMap(s) || type === 'object' ? 'secretMap' : 'secret';
  if (s.enum && (type === 'string' || type === undefined)) return 'enum';
  switch (type) {
    case 'string': return s.format === 'password' ? 'password' : 'string';
    case 'number': return 'number';
    case 'integer': return 'integer';
    case 'boolean': return 'boolean';
    case 'array': {
      const items = s.items ?? {};
      if (items.enum) return 'enumList';
      return typeOf(items) === 'string' ? 'stringList' : 'json';
    }
    case 'object': return s.properties ? 'object' : isStringMap(s) ? 'map' : 'json';
    default: return 'json';
  }
}

/** The fields of an object schema, in the schema's order. */
export function fieldsOf(schema: JsonSchema): SchemaField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, s]) => ({ name, schema: s, required: required.has(name), kind: kindOf(s) }));
}

/** A stored secret as the API shows it. */
export const isConfigured = (v: unknown): v is { configured: true } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { configured?: unknown }).configured === true
  && Object.keys(v).length === 1;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `value` with each missing field that has a default filled in (never a secret), nested objects too. */
export function withDefaults(schema: JsonSchema, value: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  for (const f of fieldsOf(schema)) {
    if (f.kind === 'secret' || f.kind === 'secretMap') continue;
    if (f.kind === 'object') {
      const inner = isPlainObject(out[f.name]) ? out[f.name] as Record<string, unknown> : undefined;
      if (inner || f.required) out[f.name] = withDefaults(f.schema, inner ?? {});
    } else if (out[f.name] === undefined && f.schema.default !== undefined) {
      out[f.name] = f.schema.default;
    }
  }
  return out;
}

/**
 * What the form sends: untouched secrets ({configured: true}) left out (the API keeps them), empty
 * texts and empty optional objects left out, blank entries of lists and name/value rows dropped.
 * A removed secret stays null.
 */
export function valueToSend(schema: JsonSchema, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const known = new Map(fieldsOf(schema).map((f) => [f.name, f]));
  for (const [name, v] of Object.entries(value)) {
    const f = known.get(name);
    if (v === undefined || isConfigured(v)) continue;
    if (!f) { out[name] = v; continue; }
    if (v === null) { if (f.kind === 'secret' || f.kind === 'secretMap' || !f.required) out[name] = null; continue; }
    switch (f.kind) {
      case 'object': {
        const inner = valueToSend(f.schema, isPlainObject(v) ? v : {});
        if (Object.keys(inner).length > 0 || f.required) out[name] = inner;
        break;
      }
      case 'stringList':
      case 'enumList':
        out[name] = Array.isArray(v) ? v.filter((x) => typeof x !== 'string' || x.trim() !== '') : v;
        break;
      case 'map':
      case 'secretMap':
        out[name] = isPlainObject(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => k.trim() !== '')) : v;
        break;
      default:
        if (v === '') break;
        out[name] = v;
    }
  }
  return out;
}

/** A field's name as a person reads it when the plugin gives no label: "signing_secret" → "Signing secret". */
export function humanize(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
