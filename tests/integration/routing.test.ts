/**
 * Routing with each path's expression made once (src/http/contract.ts compileRouting) answers
 * exactly what openapi-backend's own matching answers: for every path of the document (its
 * templates filled with ids, names and values that look like other paths' literals), with and
 * without a trailing slash, in any method, and for paths no operation has, the same operation,
 * the same undefined, or the same 404 and 405 errors in strict mode.
 */
import { jest } from '@jest/globals';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { compileRouting, loadContract, type Contract } from '../../src/http/contract.js';

let contract: Contract;
let reference: OpenAPIBackend;

beforeAll(async () => {
  contract = await loadContract('http://127.0.0.1');
  reference = new OpenAPIBackend({ definition: structuredClone(contract.document), quick: true, validate: () => false, ignoreTrailingSlashes: false });
  await reference.init();
});

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'GET', 'Post'];

/** Each path with its templates filled in a few ways (an id, a word, a literal of a neighbouring path). */
function addresses(document: Document): string[] {
  const out = new Set<string>(['/', '', '/api', '/api/v1', '/api/v1/', '/api/v1/nothing', '/api/v1/reports/a/b/c/d', '/health', '/x.json', 'api/v1/me']);
  const fills = ['0192f5a0-0000-7000-8000-000000000001', 'run', 'a.b', ''];
  for (const path of Object.keys(document.paths ?? {})) {
    for (const fill of fills) {
      const filled = path.replace(/\{[^}]+\}/g, fill);
      out.add(filled);
      out.add(`${filled}/`);
      if (fill === 'run') out.add(`${filled}/extra`);
    }
  }
  return [...out];
}

function outcome(router: OpenAPIBackend['router'], method: string, path: string, strict: boolean): string {
  try {
    const op = router.matchOperation({ method, path, headers: {} }, strict as true);
    return op ? `${op.method} ${op.path} ${op.operationId ?? ''}` : 'undefined';
  } catch (err) {
    return `error ${(err as Error).message}`;
  }
}

it('matches every address in every method as openapi-backend does, strict or not', () => {
  const paths = addresses(contract.document);
  expect(paths.length).toBeGreaterThan(300);
  const differences: string[] = [];
  let matched = 0;
  for (const [i, path] of paths.entries()) {
    for (const method of METHODS) {
      const ours = outcome(contract.api.router, method, path, false);
      const theirs = outcome(reference.router, method, path, false);
      if (ours !== theirs) differences.push(`${method} ${path}: ${ours} / ${theirs}`);
      if (ours !== 'undefined') { matched += 1; continue; }
      // Not found: strict mode's error says which (404 or 405); for every third address, as
      // openapi-backend's own matching (both sides' fallback) takes ~0.3 ms a call.
      if (i % 3 !== 0) continue;
      const strictOurs = outcome(contract.api.router, method, path, true);
      const strictTheirs = outcome(reference.router, method, path, true);
      if (strictOurs !== strictTheirs) differences.push(`${method} ${path} strict: ${strictOurs} / ${strictTheirs}`);
    }
  }
  expect(differences).toEqual([]);
  // Not a comparison of two refusals only: most of the document's operations were found.
  expect(matched).toBeGreaterThan(300);
});

it('finds a templated path\'s operation without making a regular expression per operation', () => {
  const made = jest.spyOn(globalThis, 'RegExp');
  try {
    const op = contract.api.router.matchOperation({ method: 'get', path: '/api/v1/runs/0192f5a0-0000-7000-8000-000000000001', headers: {} });
    expect(op?.operationId).toBe('getRun');
    expect(made).not.toHaveBeenCalled();
    reference.router.matchOperation({ method: 'get', path: '/api/v1/runs/0192f5a0-0000-7000-8000-000000000001', headers: {} });
    expect(made.mock.calls.length).toBeGreaterThan(50);
  } finally {
    made.mockRestore();
  }
});

it('prefers the most specific template, then the document\'s order, as openapi-backend does, where templates overlap', async () => {
  const op = (operationId: string) => ({ operationId, responses: { 200: { description: 'ok' } } });
  const document = {
    openapi: '3.0.3', info: { title: 't', version: '1' },
    paths: {
      '/a/{x}/{y}': { get: op('xy'), post: op('xyPost') },
      '/a/{x}/b': { get: op('xb') },
      '/a/b/{y}': { get: op('by'), delete: op('byDelete') },
      '/a/{x}': { get: op('x') },
      '/a/b/c': { put: op('bcPut') },
      '/a/{x}.json': { get: op('xJson') },
      '/a/{x}/{y}/{z}': { patch: op('xyz') },
    },
  } as unknown as Document;
  const make = async () => {
    const api = new OpenAPIBackend({ definition: structuredClone(document), quick: true, validate: () => false, ignoreTrailingSlashes: false });
    await api.init();
    return api;
  };
  const plain = await make();
  const compiled = await make();
  compileRouting(compiled.router, compiled.router.getOperations());
  const addressesHere = ['/a/b/c', '/a/b/b', '/a/q/b', '/a/b/q', '/a/q/r', '/a/q', '/a/q.json', '/a/b.json', '/a/b', '/a/b/c/d', '/a/q/r/s', '/a', '/b/c', '/a/q/b/'];
  const differences: string[] = [];
  for (const path of addressesHere) {
    for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
      for (const strict of [false, true]) {
        const ours = outcome(compiled.router, method, path, strict);
        const theirs = outcome(plain.router, method, path, strict);
        if (ours !== theirs) differences.push(`${method} ${path} strict=${strict}: ${ours} / ${theirs}`);
      }
    }
  }
  expect(differences).toEqual([]);
  // Two templates as specific as each other: the first in the document.
  expect(outcome(compiled.router, 'get', '/a/b/b', false)).toBe('get /a/{x}/b xb');
});

it('leaves a router under another root to openapi-backend\'s own matching', async () => {
  const api = new OpenAPIBackend({
    definition: { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/a/{x}': { get: { operationId: 'x', responses: { 200: { description: 'ok' } } } } } } as unknown as Document,
    apiRoot: '/api', quick: true, validate: () => false,
  });
  await api.init();
  compileRouting(api.router, api.router.getOperations());
  expect(Object.prototype.hasOwnProperty.call(api.router, 'matchOperation')).toBe(false);
  expect(api.router.matchOperation({ method: 'get', path: '/a/1', headers: {} })).toBeUndefined();
  expect(api.router.matchOperation({ method: 'get', path: '/api/a/1', headers: {} })?.operationId).toBe('x');
});
