/**
 * A CommonJS package loaded, synchronously, the first time it is used rather than when a Herald
 * process starts. Start-up loads only what every process of a role needs: a package that serves
 * one feature (the SQL parser of the assistant, the common-password list, the Liquid engine of
 * delivery templates, the MySQL driver) costs memory in every API process that never uses it.
 * (Where the use is asynchronous anyway, `await import(...)` does the same for ES modules.)
 */
import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

export function onFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(name) as T);
}
