import { HeraldError } from '../../../api/client';
import { useT } from '../../../i18n';
import { fieldMessages } from '../utils/fields';

/** The per-field messages of a mutation's error, for `error={errors.name}` on each input. */
export function useFieldErrors(error: unknown): Record<string, string> {
  const t = useT();
  return error instanceof HeraldError ? fieldMessages(error.errors, t) : {};
}

/** A validation problem is shown on its fields; any other error above the form. */
export const isFieldProblem = (error: unknown): boolean => error instanceof HeraldError && error.errors.length > 0;
