/**
 * A validation problem's per-field errors in the person's language: a text for the field and code
 * (`auth.field.<field>.<code>`), else for the code (`auth.field.<code>`), else the server's message.
 */
/** The app's `t` (only its lookup is used here; this file imports nothing, so unit tests load it alone). */
type Translate = (key: string) => string;

export interface FieldProblem { field: string; code: string; message?: string | undefined }

export function fieldMessages(errors: readonly FieldProblem[], t: Translate): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of errors) {
    const specific = `auth.field.${e.field}.${e.code}`;
    const generic = `auth.field.${e.code}`;
    const text = t(specific) !== specific ? t(specific) : t(generic) !== generic ? t(generic) : (e.message ?? e.code);
    out[e.field] ??= text;
  }
  return out;
}
