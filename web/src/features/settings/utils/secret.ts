/**
 * The secret convention in a form: a stored secret reads {configured: true} and is never shown.
 * A form keeps, per secret, a draft: `undefined` keeps the stored value, a string replaces it
 * (sent only when something was typed), `null` removes it. What goes in the request follows.
 */
export type SecretDraft = string | null | undefined;

/** Whether an API value is a stored secret ({configured: true}). */
export const isConfigured = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && (value as { configured?: unknown }).configured === true;

/**
 * The value to send for a secret field, or undefined to leave the field out (which keeps what is
 * stored): a typed string replaces, null removes a stored one, nothing typed keeps.
 */
export function secretToSend(stored: boolean, draft: SecretDraft): string | null | undefined {
  if (typeof draft === 'string') return draft.trim() === '' ? undefined : draft;
  if (draft === null) return stored ? null : undefined;
  return undefined;
}
