/**
 * Every response a test receives is checked against openapi.yaml: the status must be declared
 * (exactly, as a range, or as default), the content type must be one the document names, and a
 * JSON body must match its schema. A mismatch fails the test that made the request.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import type { Test } from 'supertest';
import type { OpenAPIV3 } from 'openapi-types';
import { loadContract, type Contract } from '../../src/http/contract.js';
import { isFieldCode, isProblemCode } from '../../src/handlers/error-status.js';

let contract: Promise<Contract> | undefined;
const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const compiled = new Map<string, ValidateFunction>();

export function getContract(): Promise<Contract> {
  contract ??= loadContract('http://127.0.0.1');
  return contract;
}

const PROBLEM_PATHS = /^\/(docs|sdk\/herald-sdk\.tgz$|api\/v1\/openapi\.(yaml|json))/;

export async function checkResponse(method: string, url: string, res: Response): Promise<void> {
  const { api } = await getContract();
  const pathOnly = url.split('?')[0]!;
  const contentType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
  const where = `${method.toUpperCase()} ${pathOnly} → ${res.status}`;
  const operation = api.matchOperation({ method, path: pathOnly, headers: {} }) as (OpenAPIV3.OperationObject & { operationId: string }) | undefined;
  if (!operation) {
    if (PROBLEM_PATHS.test(pathOnly) && res.status < 400) return; // docs and the document itself
    if (contentType !== 'application/problem+json') throw new Error(`${where}: unmatched path must answer a problem document`);
    validate('#problem', problemSchema(api.definition as OpenAPIV3.Document), res.body, where);
    checkCatalogued(res.body, where);
    return;
  }
  const responses = operation.responses as Record<string, OpenAPIV3.ResponseObject>;
  const declared = responses[String(res.status)] ?? responses[`${String(res.status)[0]}XX`] ?? responses.default;
  if (!declared) throw new Error(`${where}: status not declared for ${operation.operationId}`);
  // A header the document declares required (Content-Disposition of a download, Location of a
  // redirect) must be there: generated clients read it without a check.
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    if ((header as OpenAPIV3.HeaderObject).required && res.headers[name.toLowerCase()] === undefined) {
      throw new Error(`${where}: declared header ${name} is missing`);
    }
  }
  const content = declared.content ?? {};
  const types = Object.keys(content);
  if (types.length === 0) {
    if (res.text && res.text.length > 0) throw new Error(`${where}: declared without a body but has one`);
    return;
  }
  if (!types.includes(contentType)) throw new Error(`${where}: content type ${contentType} not in ${types.join(', ')}`);
  if (contentType.endsWith('json')) {
    const schema = content[contentType]!.schema as object;
    validate(`${operation.operationId}|${res.status}|${contentType}`, schema, res.body, where);
    if (contentType === 'application/problem+json') checkCatalogued(res.body, where);
  }
  if (res.headers['x-request-id'] === undefined) throw new Error(`${where}: no X-Request-ID header`);
}

/**
 * Errors of `value` against components.schemas[name] of the contract (references resolved), or
 * null when it matches: for what no response carries as a JSON body, such as the data of events.
 */
export async function schemaErrors(name: string, value: unknown): Promise<string | null> {
  const { api } = await getContract();
  const schema = (api.definition as OpenAPIV3.Document).components?.schemas?.[name];
  if (!schema) throw new Error(`components.schemas.${name} is not in the contract`);
  const key = `#schemas/${name}`;
  const fn = compiled.get(key) ?? ajv.compile(schema as object);
  compiled.set(key, fn);
  return fn(value) ? null : ajv.errorsText(fn.errors);
}

/** A problem document's code and per-field codes must be in the contract's catalogue. */
function checkCatalogued(body: unknown, where: string): void {
  const problem = body as { code?: unknown; errors?: Array<{ code?: unknown }> };
  if (typeof problem.code !== 'string' || !isProblemCode(problem.code)) {
    throw new Error(`${where}: problem code ${String(problem.code)} is not in components.x-problem-codes`);
  }
  for (const e of problem.errors ?? []) {
    if (typeof e.code !== 'string' || !isFieldCode(e.code)) throw new Error(`${where}: field code ${String(e.code)} is not in components.x-field-codes`);
  }
}

function problemSchema(doc: OpenAPIV3.Document): object {
  return doc.components!.schemas!.Problem as object;
}

function validate(key: string, schema: object, body: unknown, where: string): void {
  const fn = compiled.get(key) ?? ajv.compile(schema);
  compiled.set(key, fn);
  if (!fn(body)) {
    throw new Error(`${where}: body does not match the contract: ${ajv.errorsText(fn.errors)}\n${JSON.stringify(body)}`);
  }
}

/** Wraps a supertest request so that awaiting it also checks the answer against the contract. */
export function checked(test: Test, method: string, url: string): Test {
  const originalThen = test.then.bind(test);
  (test as unknown as { then: Test['then'] }).then = ((onFulfilled, onRejected) =>
    originalThen(async (res: Response) => {
      await checkResponse(method, url, res);
      return res;
    }).then(onFulfilled, onRejected)) as Test['then'];
  return test;
}
