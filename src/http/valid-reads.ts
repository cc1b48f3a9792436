/**
 * The parameters of reads already found valid, by address: a GET's validation is a function of
 * its path, its query string and the values of the headers its operation declares (a GET has no
 * body), so the same address with the same such headers is valid again, with the same coerced
 * parameters. A polled read (a list, a run watched until it ends, a dashboard) is parsed and
 * validated by openapi-backend once, not on every request (its parsing and ajv's validation were
 * ~8 % of a kept list answer's CPU). Access is still checked on every request: nothing here
 * depends on the caller. Only what passed is kept; an invalid request is validated (and
 * refused) every time. Bounded: the oldest address goes first.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Document, Operation } from 'openapi-backend';

export interface ValidParameters {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
}

/** Addresses kept per API process (each up to a few KiB: an If-None-Match may have 2,048 characters). */
export const VALID_READS_MAX = 2000;

/** Copied at every level (arrays and plain objects), so that a handler changing what it was given changes nothing kept. */
function copied(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copied);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return copyOf(v as Record<string, unknown>);
  return v;
}
function copyOf(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = copied(v);
  return out;
}

export class ValidReads {
  private readonly entries = new Map<string, ValidParameters>();
  /** Per operation: the headers it declares (lower case), or null when its validation is never kept. */
  private readonly declared = new WeakMap<Operation, readonly string[] | null>();

  /** `document`: where a `$ref` parameter is found, should an operation still hold one (openapi-backend dereferences the contract). */
  constructor(private readonly document: Document, private readonly max = VALID_READS_MAX) {}

  /**
   * The key of a request (`url`: its path and query string), or undefined when the operation's
   * validation is not kept: not a GET, or a parameter that is neither in the path, the query nor
   * a header (a cookie), or one not resolved.
   */
  keyOf(operation: Operation, url: string, headers: IncomingHttpHeaders): string | undefined {
    let names = this.declared.get(operation);
    if (names === undefined) {
      names = declaredHeaders(operation, this.document);
      this.declared.set(operation, names);
    }
    if (names === null) return undefined;
    let key = `${operation.operationId ?? ''}\u0000${url}`;
    for (const n of names) {
      const v = headers[n];
      key += v === undefined ? '\u0000\u0001' : `\u0000${Array.isArray(v) ? v.join(', ') : v}`;
    }
    return key;
  }

  /** What a request with this key was validated to, as copies of its own. */
  get(key: string): ValidParameters | undefined {
    const kept = this.entries.get(key);
    return kept && { params: copyOf(kept.params), query: copyOf(kept.query) };
  }

  remember(key: string, valid: ValidParameters): void {
    if (this.entries.has(key)) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { params: copyOf(valid.params), query: copyOf(valid.query) });
  }

  get size(): number { return this.entries.size; }
}

interface Parameter { in: string; name: string }

/** A parameter or a local reference to one (`#/components/parameters/Name`); undefined for anything else. */
function resolved(p: object, document: Document): Parameter | undefined {
  if (!('$ref' in p)) return p as Parameter;
  const ref = String(p.$ref);
  const prefix = '#/components/parameters/';
  if (!ref.startsWith(prefix)) return undefined;
  const found = (document.components?.parameters as Record<string, object> | undefined)?.[ref.slice(prefix.length)];
  return found === undefined || '$ref' in found ? undefined : found as Parameter;
}

function declaredHeaders(operation: Operation, document: Document): readonly string[] | null {
  if (operation.method.toLowerCase() !== 'get') return null;
  const names: string[] = [];
  for (const declared of operation.parameters ?? []) {
    const p = resolved(declared, document);
    if (p === undefined) return null;
    if (p.in === 'header') names.push(p.name.toLowerCase());
    else if (p.in !== 'path' && p.in !== 'query') return null;
  }
  return names;
}
