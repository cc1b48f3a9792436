/**
 * The pure part of the channel form: where a form starts from (the stored settings, or the
 * plugin's defaults for a new channel), what it sends (untouched secrets left out, so the API
 * keeps them), and the attempts a retry queued, grouped by run. No imports beyond schema-form, so
 * unit tests load it as it is.
 */
import { valueToSend, withDefaults, type JsonSchema } from '../../../components/schema-form.js';

export interface ChannelFormState {
  name: string;
  type: string | null;
  settings: Record<string, unknown>;
}

/** A new channel of `type` (or none chosen yet), or a saved one as loaded. */
export function initialForm(schema: JsonSchema | undefined, channel?: { name: string; type: string; settings: Record<string, unknown> }): ChannelFormState {
  if (channel) return { name: channel.name, type: channel.type, settings: withDefaults(schema ?? {}, channel.settings) };
  return { name: '', type: null, settings: schema ? withDefaults(schema, {}) : {} };
}

/** The body of POST /channels. */
export function createBody(schema: JsonSchema, form: ChannelFormState): { name: string; type: string; settings: Record<string, unknown> } {
  return { name: form.name.trim(), type: form.type ?? '', settings: valueToSend(schema, form.settings) };
}

/** The body of PATCH /channels/{id}: the name and the settings (secrets only when typed or removed), with the version the edit started from. */
export function updateBody(schema: JsonSchema, form: ChannelFormState, version: number): { name: string; settings: Record<string, unknown>; version: number } {
  return { name: form.name.trim(), settings: valueToSend(schema, form.settings), version };
}

export interface QueuedAttempt { id: string; run_id: string; position: number; channel_name: string; error?: { code: string; message: string } | null; finished_at?: string | null }

/** The attempts a retry queued, by run (in the order the API answered them). */
export function queuedByRun<A extends QueuedAttempt>(attempts: A[]): Array<{ runId: string; attempts: A[] }> {
  const out = new Map<string, A[]>();
  for (const a of attempts) out.set(a.run_id, [...(out.get(a.run_id) ?? []), a]);
  return [...out].map(([runId, list]) => ({ runId, attempts: list }));
}
