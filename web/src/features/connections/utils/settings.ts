/**
 * A connection as the form holds it and what the form sends. A connection is flat (name, type,
 * then the fields its plugin's settings_schema describes: host, port, …, password, options); the
 * form keeps the settings apart so PluginSettingsForm draws them. No imports, for unit tests:
 * the caller passes what valueToSend (components/schema-form.ts) made of the form.
 */

type Settings = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Settings => typeof v === 'object' && v !== null && !Array.isArray(v);
const isConfigured = (v: unknown): boolean => isPlainObject(v) && v.configured === true && Object.keys(v).length === 1;
const isEmpty = (v: unknown): boolean => v === undefined || v === null || v === '';

/** The settings of a saved connection: the fields its plugin's schema names, as the API shows them. */
export function settingsOf(fields: readonly string[], connection: Settings): Settings {
  const out: Settings = {};
  for (const name of fields) if (connection[name] !== undefined && connection[name] !== null) out[name] = connection[name];
  return out;
}

/**
 * The settings an edit sends, from what valueToSend gives. valueToSend leaves an emptied text out,
 * and the API keeps a value left out: an optional text that was set and is now empty goes as null
 * (removed), a required one as '' (so the service names the field). Objects (options) are replaced
 * whole by the API, so one that was set and is now empty goes as {}. Secrets are valueToSend's
 * business ({configured: true} left out keeps, null removes, a string replaces).
 */
export function editedSettings(sent: Settings, form: Settings, saved: Settings, required: readonly string[]): Settings {
  const out: Settings = { ...sent };
  for (const [name, before] of Object.entries(saved)) {
    if (name in out || isConfigured(before) || !isEmptyNow(form[name])) continue;
    if (typeof before === 'string' && before !== '') out[name] = required.includes(name) ? '' : null;
    else if (isPlainObject(before) && Object.keys(before).length > 0) out[name] = {};
  }
  return out;
}

function isEmptyNow(v: unknown): boolean {
  if (isEmpty(v)) return true;
  return isPlainObject(v) && !isConfigured(v) && Object.values(v).every(isEmpty);
}

/**
 * An empty object for each object field with properties of a settings schema (options), so the
 * form's defaults fill their fields too (withDefaults fills an optional object only when given).
 */
export function startObjects(schema: { properties?: Record<string, { type?: unknown; properties?: unknown }> }): Settings {
  const out: Settings = {};
  for (const [name, s] of Object.entries(schema.properties ?? {})) if (s.type === 'object' && isPlainObject(s.properties)) out[name] = {};
  return out;
}

/** The body of POST /connections/test: the typed settings of a new connection, or an edit's over its saved one. */
export function testBody(type: string, settings: Settings, connectionId?: string): Settings {
  return connectionId ? { connection_id: connectionId, ...settings } : { type, ...settings };
}

/** A table of a cached schema matching a filter (its schema, its name or one of its columns), case-insensitively. */
export function matchesTable(table: { schema: string; name: string; columns: Array<{ name: string }> }, filter: string): boolean {
  const f = filter.trim().toLowerCase();
  if (f === '') return true;
  return `${table.schema}.${table.name}`.toLowerCase().includes(f) || table.columns.some((c) => c.name.toLowerCase().includes(f));
}
