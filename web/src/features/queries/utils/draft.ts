/**
 * The editor's draft of a query: what the form holds (texts as typed), made from the query the API
 * answered, and turned back into the body of createQuery or updateQuery (only what changed, with
 * the version). Values are typed as the parameter's type asks; whether they are valid is the
 * API's to say (its field errors land on the inputs). Pure; the types mirror the contract's.
 */

export type ParameterType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'timestamp';
export const PARAMETER_TYPES: readonly ParameterType[] = ['string', 'number', 'integer', 'boolean', 'date', 'timestamp'];
export type ParameterValue = string | number | boolean | null;

export interface QueryParameter {
  name: string;
  type: ParameterType;
  default?: ParameterValue;
  required?: boolean;
  description?: string;
}

/** What the editor needs of a query (Schemas['Query']). */
export interface QueryLike {
  name: string;
  description: string | null;
  connection_id: string;
  sql: string;
  parameters: QueryParameter[];
  version: number;
}

export interface ParameterDraft {
  /** A local key for the list (not sent). */
  key: string;
  name: string;
  type: ParameterType;
  /** The default as typed; '' means none. */
  default: string;
  required: boolean;
  description: string;
}

export interface QueryDraft {
  name: string;
  description: string;
  connectionId: string | null;
  sql: string;
  parameters: ParameterDraft[];
}

let keyCounter = 0;
export const newKey = (): string => `p${(keyCounter += 1)}`;

/** A value as the form shows it. */
export function valueText(value: ParameterValue | undefined): string {
  if (value === null || value === undefined) return '';
  return String(value);
}

/**
 * A typed value from the text of an input: numbers as numbers while exact (else the text, which
 * keeps big integers exact), booleans from true/false, everything else as text; '' is none.
 */
export function typedValue(type: ParameterType, text: string): ParameterValue | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  switch (type) {
    case 'number': {
      const n = Number(t);
      return Number.isFinite(n) && String(n) === t.replace(/^\+/, '') ? n : t;
    }
    case 'integer': {
      const n = Number(t);
      return /^-?\d+$/.test(t) && Number.isSafeInteger(n) ? n : t;
    }
    case 'boolean':
      return t === 'true' ? true : t === 'false' ? false : t;
    default:
      return type === 'string' ? text : t;
  }
}

export function parameterDraft(p: Partial<QueryParameter> & { name: string }): ParameterDraft {
  return {
    key: newKey(), name: p.name, type: p.type ?? 'string', default: valueText(p.default),
    required: p.required ?? false, description: p.description ?? '',
  };
}

export const emptyDraft = (connectionId: string | null = null): QueryDraft => ({
  name: '', description: '', connectionId, sql: '', parameters: [],
});

export function draftOf(q: QueryLike): QueryDraft {
  return {
    name: q.name,
    description: q.description ?? '',
    connectionId: q.connection_id,
    sql: q.sql,
    parameters: q.parameters.map(parameterDraft),
  };
}

/** The declarations as the contract takes them. */
export function parametersOf(drafts: readonly ParameterDraft[]): QueryParameter[] {
  return drafts.map((d) => {
    const p: QueryParameter = { name: d.name.trim(), type: d.type, required: d.required };
    const value = typedValue(d.type, d.default);
    if (value !== undefined) p.default = value;
    if (d.description.trim() !== '') p.description = d.description.trim();
    return p;
  });
}

const sameParameters = (a: readonly QueryParameter[], b: readonly QueryParameter[]): boolean =>
  JSON.stringify(a.map(normalised)) === JSON.stringify(b.map(normalised));

function normalised(p: QueryParameter): QueryParameter {
  return {
    name: p.name, type: p.type, required: p.required ?? false,
    ...(p.default === undefined || p.default === null ? {} : { default: p.default }),
    ...(p.description ? { description: p.description } : {}),
  };
}

/** The body of createQuery. */
export function createBody(d: QueryDraft) {
  return {
    name: d.name,
    description: d.description.trim() === '' ? null : d.description,
    connection_id: d.connectionId ?? '',
    sql: d.sql,
    parameters: parametersOf(d.parameters),
  };
}

export interface QueryChanges {
  version: number;
  name?: string;
  description?: string | null;
  connection_id?: string;
  sql?: string;
  parameters?: QueryParameter[];
}

/** The body of updateQuery: the version, and each field that differs from the query as read. */
export function changesOf(d: QueryDraft, q: QueryLike): QueryChanges {
  const out: QueryChanges = { version: q.version };
  if (d.name !== q.name) out.name = d.name;
  const description = d.description.trim() === '' ? null : d.description;
  if (description !== (q.description ?? null)) out.description = description;
  if (d.connectionId !== null && d.connectionId !== q.connection_id) out.connection_id = d.connectionId;
  if (d.sql !== q.sql) out.sql = d.sql;
  const parameters = parametersOf(d.parameters);
  if (!sameParameters(parameters, q.parameters)) out.parameters = parameters;
  return out;
}

/** Whether the draft holds a change to send. */
export const isDirty = (d: QueryDraft, q: QueryLike): boolean => Object.keys(changesOf(d, q)).length > 1;

/** Preview values: each declared parameter's input as its type, leaving out what is empty. */
export function previewValues(drafts: readonly ParameterDraft[], texts: Readonly<Record<string, string>>): Record<string, ParameterValue> {
  const out: Record<string, ParameterValue> = {};
  for (const d of drafts) {
    const name = d.name.trim();
    if (name === '') continue;
    const value = typedValue(d.type, texts[name] ?? d.default);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
