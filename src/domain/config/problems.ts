/**
 * The file each problem of a refused plan or apply is about (a configuration directory's
 * status names it), kept beside the problem without changing its shape.
 */
import type { FieldProblem } from '../../core/errors.js';

/** The file each problem of a refused plan or apply came from (the configuration directory's status). */
const problemSources = new WeakMap<FieldProblem, string>();
export const from = (source: string | null | undefined, p: FieldProblem): FieldProblem => {
  if (source) problemSources.set(p, source);
  return p;
};
/** The file a problem of plan or apply is about, when it is one file's. */
export const sourceOfProblem = (p: FieldProblem): string | null => problemSources.get(p) ?? null;
