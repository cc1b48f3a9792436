/**
 * Where a run's result file is kept, as its result_key says: a key of the artifact store (files
 * under SVC_DATA_DIR, or a bucket), or, with the `db:` prefix, the store's own row (run_results:
 * a small result, src/infra/artifacts/inline-results.ts).
 */
const INLINE = 'db:';

/** The key of a run's result file kept in the store (ResultWriter.finish answered it inline). */
export const inlineResultKeyOf = (key: string): string => `${INLINE}${key}`;

/** The run whose result the key names when it is kept in the store, else undefined. */
export const inlineRunOf = (key: string): string | undefined => (key.startsWith(INLINE) ? key.slice(key.lastIndexOf('/') + 1) : undefined);
