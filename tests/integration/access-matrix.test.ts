/**
 * The access matrix: every operation of openapi.yaml, read from the document itself with its x-
 * extensions, called as nobody, as viewer, editor and admin sessions, with read, run, write and
 * admin keys of an admin, and with an admin-scope key of an editor (a key never exceeds its
 * owner). Below the minimum the answer is 401 / 403 auth.forbidden / 403 auth.session_required;
 * at or above it, anything but 401 and 403.
 */
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import type { Test } from 'supertest';
import { ROLE_RANK, SCOPE_RANK, type Role, type Scope } from '../../src/domain/identity/principal.js';
import { startHerald, type Herald, type HttpClient } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin, signIn, ADMIN, type SessionClient } from '../support/identity.js';

type Access = { public: true } | { public: false; minRole: Role; minScope: Scope; sessionOnly: boolean };
interface Operation { method: 'get' | 'put' | 'post' | 'patch' | 'delete'; path: string; access: Access }
type OperationId = string;

/** Every operation of openapi.yaml with its declared access, straight from the document. */
function readOperations(): Record<OperationId, Operation> {
  const doc = loadYaml(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const out: Record<OperationId, Operation> = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'put', 'post', 'patch', 'delete'] as const) {
      const op = item[method];
      if (!op) continue;
      const access: Access = op['x-public'] === true
        ? { public: true }
        : { public: false, minRole: op['x-min-role'] as Role, minScope: op['x-min-scope'] as Scope, sessionOnly: op['x-session-only'] === true };
      out[op.operationId as string] = { method, path, access };
    }
  }
  return out;
}

const declared = readOperations();
function metaOf(id: OperationId): Operation {
  const meta = declared[id];
  if (!meta) throw new Error(`no operation ${id}`);
  return meta;
}

type Caller =
  | { label: string; kind: 'none'; client: HttpClient }
  | { label: string; kind: 'session'; role: Role; client: HttpClient; fresh: () => Promise<HttpClient> }
  | { label: string; kind: 'key'; scope: Scope; ownerRole: Role; client: HttpClient };

/** Operations that end the caller's own session when allowed: checked last, on fresh sessions. */
const ENDS_SESSION = new Set<OperationId>(['logout', 'revokeAllMySessions']);

let h: Herald;
let admin: SessionClient;
const callers: Caller[] = [];

function pathOf(id: OperationId): string {
  return metaOf(id).path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    (name === 'number' ? '1' : name === 'token' ? 'no-such-token' : randomUUID()));
}

function call(client: HttpClient, id: OperationId): Test {
  const meta = metaOf(id);
  const test = client[meta.method](pathOf(id));
  if (id !== 'streamEvents') return test;
  // An allowed caller gets an endless event stream: take its headers, then hang up.
  return test.buffer(true).parse((response, done) => {
    const res = response as unknown as IncomingMessage; // superagent's node response
    if (/^text\/event-stream/.test(String(res.headers['content-type']))) {
      res.destroy();
      done(null, {});
      return;
    }
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => { text += chunk; });
    res.on('end', () => done(null, JSON.parse(text)));
  });
}

function expectation(caller: Caller, id: OperationId): 'allowed' | 'auth.unauthenticated' | 'auth.forbidden' | 'auth.session_required' {
  const { access } = metaOf(id);
  if (access.public) return 'allowed';
  if (caller.kind === 'none') return 'auth.unauthenticated';
  if (caller.kind === 'key' && access.sessionOnly) return 'auth.session_required';
  if (caller.kind === 'session') return ROLE_RANK[caller.role] >= ROLE_RANK[access.minRole] ? 'allowed' : 'auth.forbidden';
  return SCOPE_RANK[caller.scope] >= SCOPE_RANK[access.minScope] && ROLE_RANK[caller.ownerRole] >= ROLE_RANK[access.minRole]
    ? 'allowed' : 'auth.forbidden';
}

/** A 403 auth.forbidden names what was needed: the operation's role, and for keys its scope too. */
function needed(caller: Caller, id: OperationId): Record<string, unknown> {
  const { access } = metaOf(id);
  if (access.public) return {};
  return caller.kind === 'key' ? { required_role: access.minRole, required_scope: access.minScope } : { required_role: access.minRole };
}

function neededOf(body: { required_role?: string; required_scope?: string; detail?: string }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body.required_role !== undefined) out.required_role = body.required_role;
  if (body.required_scope !== undefined) out.required_scope = body.required_scope;
  // The detail says it in words, too.
  for (const v of Object.values(out)) if (!body.detail?.includes(String(v))) out.detail = body.detail;
  return out;
}

beforeAll(async () => {
  h = await startHerald();
  admin = await setupAdmin(h);
  const viewer = await createSignedInUser(h, admin, { name: 'Vera Viewer', email: 'vera@example.com', role: 'viewer' });
  const editor = await createSignedInUser(h, admin, { name: 'Ed Editor', email: 'ed@example.com', role: 'editor' });
  callers.push({ label: 'nobody', kind: 'none', client: h.http });
  callers.push({ label: 'viewer session', kind: 'session', role: 'viewer', client: viewer, fresh: () => signIn(h, 'vera@example.com', viewer.password) });
  callers.push({ label: 'editor session', kind: 'session', role: 'editor', client: editor, fresh: () => signIn(h, 'ed@example.com', editor.password) });
  callers.push({ label: 'admin session', kind: 'session', role: 'admin', client: admin, fresh: () => signIn(h, ADMIN.email, ADMIN.password) });
  for (const scope of ['read', 'run', 'write', 'admin'] as const) {
    const key = await createKey(admin, { name: `${scope} key`, scope });
    callers.push({ label: `${scope} key`, kind: 'key', scope, ownerRole: 'admin', client: keyClient(h, key.token) });
  }
  const editorsKey = await createKey(admin, { name: 'admin key of an editor', scope: 'admin', owner_id: editor.userId });
  callers.push({ label: 'admin key of an editor', kind: 'key', scope: 'admin', ownerRole: 'editor', client: keyClient(h, editorsKey.token) });
}, 60_000);

afterAll(async () => { await h.stop(); });

const operations = Object.keys(declared);

describe('the access matrix covers every operation of openapi.yaml', () => {
  it('declares access for every operation', () => {
    expect(operations.length).toBeGreaterThan(110);
    for (const id of operations) {
      const a = metaOf(id).access;
      expect(a.public || (a.minRole && a.minScope)).toBeTruthy();
    }
  });

  it.each(operations.filter((id) => !ENDS_SESSION.has(id)))('%s', async (id) => {
    for (const caller of callers) {
      if (metaOf(id).access.public && caller.kind !== 'none') continue;
      const res = await call(caller.client, id);
      const expected = expectation(caller, id);
      const seen = `${caller.label} → ${res.status} ${res.body?.code ?? ''}`;
      if (expected === 'allowed') {
        expect([seen, [401, 403].includes(res.status)]).toEqual([seen, false]);
      } else {
        expect([seen, res.body.code]).toEqual([seen, expected]);
        expect(res.status).toBe(expected === 'auth.unauthenticated' ? 401 : 403);
        if (expected === 'auth.forbidden') expect([seen, neededOf(res.body)]).toEqual([seen, needed(caller, id)]);
        if (expected === 'auth.unauthenticated') expect([seen, res.headers['www-authenticate']]).toEqual([seen, expect.stringMatching(/^Bearer realm="herald"/)]);
      }
    }
  });

  it.each([...ENDS_SESSION])('%s (on fresh sessions)', async (id) => {
    for (const caller of callers) {
      const client = caller.kind === 'session' ? await caller.fresh() : caller.client;
      const res = await call(client, id);
      const expected = expectation(caller, id);
      if (expected === 'allowed') expect([caller.label, res.status]).toEqual([caller.label, 204]);
      else expect([caller.label, res.body.code]).toEqual([caller.label, expected]);
    }
  });
});
