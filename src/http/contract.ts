/** Loads openapi.yaml once and builds the openapi-backend router/validator from it. */
import { readFileSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import addFormats from 'ajv-formats';
import { openapiPath } from '../infra/paths.js';

export interface Contract {
  api: OpenAPIBackend;
  /** The file as written (not what is served: createHttpApp serves `document` with its 501 marks, docs.ts). */
  spec: { yaml: string; json: string };
  document: Document;
}

/** openapi-backend routes and validates; access is enforced from the x- extensions by our own code. */
function withoutSecurity(document: Document): Document {
  const copy = structuredClone(document);
  delete copy.security;
  for (const item of Object.values(copy.paths ?? {})) {
    for (const op of Object.values(item ?? {})) {
      if (op && typeof op === 'object' && 'security' in op) delete (op as { security?: unknown }).security;
    }
  }
  return copy;
}

/** The document last parsed, with the file's text then (see parseDocument). */
let lastParsed: { file: string; yaml: string; document: Document } | undefined;

/**
 * The file's document, parsed again only when its text differs from the last parse: a process
 * that makes a second contract (a test file starts Herald and checks its answers against the
 * document, some start two) skips js-yaml's ~180 ms. Each caller gets its own copy.
 */
function parseDocument(file: string): { yaml: string; document: Document } {
  const yaml = readFileSync(file, 'utf8');
  if (lastParsed?.file !== file || lastParsed.yaml !== yaml) lastParsed = { file, yaml, document: loadYaml(yaml) as Document };
  return { yaml, document: structuredClone(lastParsed.document) };
}

/**
 * quick mode compiles each operation's validators on first use: start-up takes ~40 ms instead of
 * ~3.8 s (115 operations); the document itself is checked by the linter in make test.
 */
export async function loadContract(publicUrl: string, file = openapiPath, options: { quick?: boolean } = {}): Promise<Contract> {
  const { yaml, document } = parseDocument(file);
  // The served copy names this instance as its server, so Swagger UI and SDKs call it.
  const served = { ...document, servers: [{ url: publicUrl, description: 'this instance' }] };
  const api = new OpenAPIBackend({
    definition: withoutSecurity(document),
    quick: options.quick ?? true,
    // Validation runs after the access check, by the dispatcher (see http-app.ts).
    validate: () => false,
    coerceTypes: true,
    ignoreTrailingSlashes: false,
    ajvOpts: { allErrors: true, strict: false, useDefaults: true },
    customizeAjv: (ajv) => {
      (addFormats as unknown as (a: typeof ajv) => void)(ajv);
      return ajv;
    },
  });
  await api.init();
  // openapi-backend's router rebuilds its list of operations on every call (several times per
  // request): ~2.8 ms per request with 115 operations. The document never changes after init,
  // so the list is built once (routing then takes ~0.05 ms; see scripts/bench).
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  compileRouting(api.router, operations);
  return { api, spec: { yaml, json: JSON.stringify(served) }, document };
}

type Router = OpenAPIBackend['router'];
type RoutedOperation = ReturnType<Router['getOperations']>[number];

/**
 * openapi-backend matches a path with a template ({runId}) by making a regular expression of
 * every operation's path on every request (~150 of them, with their escapes): a third of the
 * CPU of a kept `GET /runs/{id}` answer. Here each path's expression is made once, and a request
 * is matched as openapi-backend matches it: an operation of that exact path and method first;
 * then among the templates the path matches, the most specific (longest without its templates,
 * in the document's order among equals) with that method. What it does not find (no operation
 * at the path, or none for the method) goes to openapi-backend's own matching, which answers
 * undefined or throws its 404 and 405 as before (tests/integration/routing.test.ts compares the
 * two on every operation).
 */
export function compileRouting(router: Router, operations: readonly RoutedOperation[]): void {
  // Under another root, openapi-backend first checks a path is under it: left to its own matching.
  if (router.apiRoot !== '/') return;
  const original = router.matchOperation.bind(router);
  const exact = new Map<string, RoutedOperation[]>();
  const templated: Array<{ op: RoutedOperation; pattern: RegExp; specificity: number }> = [];
  for (const op of operations) {
    exact.set(op.path, [...(exact.get(op.path) ?? []), op]);
    if (op.path.includes('{')) {
      const pattern = op.path.replace(/\{[^}]+\}/g, '\0').split('\0').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+');
      templated.push({ op, pattern: new RegExp(`^${pattern}$`), specificity: op.path.replace(/\{.*?\}/g, '').length });
    }
  }
  // Most specific first; Array.prototype.sort is stable, as lodash's orderBy is.
  templated.sort((a, b) => b.specificity - a.specificity);
  const match = (req: Parameters<Router['matchOperation']>[0], strict?: boolean) => {
    const { method, path } = router.normalizeRequest(req);
    const normalized = router.normalizePath(path);
    const found = exact.get(normalized)?.find((op) => op.method === method)
      ?? templated.find((t) => t.op.method === method && t.pattern.test(normalized))?.op;
    // Not under the API's root, no operation at the path, or none for its method: as before.
    return found ?? original(req, strict as true);
  };
  router.matchOperation = match as Router['matchOperation'];
}
