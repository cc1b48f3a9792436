/**
 * openapi.yaml as generated clients (openapi-typescript + openapi-fetch) read it: every operation
 * says what it does and what it answers on success, operations not built yet included (their
 * shapes are declared ahead of the feature); downloads name a media type per format; the event
 * stream names a schema per kind; the licence is the project's.
 */
import { readFileSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import { PUBLIC_EVENT_KINDS } from '../../src/domain/events/model.js';

type Schema = Record<string, unknown> & { $ref?: string };
interface Header { required?: boolean; schema?: Schema; description?: string }
interface Response { $ref?: string; description?: string; headers?: Record<string, Header>; content?: Record<string, { schema?: Schema }> }
interface Operation { operationId: string; summary?: string; description?: string; responses: Record<string, Response> }
interface Doc {
  openapi: string;
  info: { license?: { name?: string; url?: string; identifier?: string } };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, Response> };
}

const doc = loadYaml(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as Doc;
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { license: string };
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((m) => ({ method: m, path, op: item[m]! })));
const byId = (id: string) => operations.find((o) => o.op.operationId === id)!.op;
const resolve = (r: Response): Response => (r.$ref ? doc.components.responses[r.$ref.split('/').pop()!]! : r);

/** What is wrong with an operation's success answers, or '' when a client can type them. */
function successProblem(op: Operation): string {
  const success = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
  if (success.length === 0) {
    // Redirects are the success of a browser flow (single sign-on): they must name their target.
    const redirects = Object.entries(op.responses).filter(([status]) => /^3\d\d$/.test(status)).map(([, r]) => resolve(r));
    if (redirects.length > 0 && redirects.every((r) => r.headers?.Location?.required === true)) return '';
    return 'no 2xx response (nor a redirect with a required Location)';
  }
  for (const [status, raw] of success) {
    const r = resolve(raw);
    if (!r.description?.trim()) return `${status} has no description`;
    const media = Object.entries(r.content ?? {});
    if (media.length === 0) {
      if (status !== '204' && status !== '202') return `${status} declares no content (only 204 and 202 may)`;
      continue;
    }
    if (status === '204') return '204 declares content';
    for (const [type, m] of media) if (!m.schema) return `${status} ${type} has no schema`;
  }
  return '';
}

describe('every operation', () => {
  it.each(operations.map((o) => [o.op.operationId, o]))('%s has a summary and a description', (_id, { op }) => {
    expect(op.summary?.trim()).toBeTruthy();
    expect(op.description?.trim()).toBeTruthy();
  });

  it.each(operations.map((o) => [o.op.operationId, o]))('%s documents its success response', (_id, { op }) => {
    expect(successProblem(op)).toBe('');
  });

  it('keeps 501 declared beside the success answer of operations not built yet', () => {
    // The served document marks them (src/http/docs.ts); the file declares what they will answer.
    for (const id of ['exportConfig', 'importConfig', 'getAiStatus', 'getAlertSettings', 'listNotifications', 'getDashboard']) {
      const op = byId(id);
      expect([id, Object.keys(op.responses).some((s) => s.startsWith('2')), Object.keys(op.responses)]).toEqual([id, true, expect.arrayContaining(['501'])]);
    }
  });
});

describe('the licence', () => {
  it('is Apache-2.0, with the licence text linked, as in package.json and LICENSE', () => {
    expect(pkg.license).toBe('Apache-2.0');
    expect(readFileSync(new URL('../../LICENSE', import.meta.url), 'utf8')).toContain('Apache License');
    const license = doc.info.license!;
    expect(license.name).toBe('Apache-2.0');
    // OpenAPI 3.0 has no `identifier` (3.1 added it): the url says which licence it is.
    if (doc.openapi.startsWith('3.0')) expect(license).toEqual({ name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' });
    else expect(license.identifier ?? license.url).toMatch(/^(Apache-2\.0|https:\/\/www\.apache\.org\/licenses\/LICENSE-2\.0)$/);
  });
});

describe('result downloads', () => {
  it.each(['getRunResult', 'downloadSharedLink'])('%s names a media type per format: csv text, xlsx binary, json the ResultFile', (id) => {
    const ok = resolve(byId(id).responses['200']!);
    const content = ok.content!;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv']);
    expect(content['text/csv']!.schema).toMatchObject({ type: 'string' });
    expect(content['text/csv']!.schema!.format).toBeUndefined(); // a string, not a Blob
    expect(content['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']!.schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ResultFile' });
    expect(ok.headers?.['Content-Disposition']).toMatchObject({ required: true, schema: { type: 'string' }, description: expect.stringContaining('filename') });
  });
});

describe('the event stream', () => {
  const DATA_SCHEMAS: Record<string, string> = {
    'run.updated': 'RunUpdatedEvent', 'report.updated': 'ReportUpdatedEvent', 'channel.health': 'ChannelHealthEvent',
    'notification.created': 'NotificationCreatedEvent', shutdown: 'ShutdownEvent',
    reset: 'ResetEvent',
  };
  /** The variants of components.schemas.Event: the kind each one is for, its data schema and required fields. */
  const variantsOfEvent = () => ((doc.components.schemas.Event?.oneOf ?? []) as Schema[]).map((v) => {
    const props = v.properties as Record<string, Schema>;
    return { kind: (props.event!.enum as string[])[0]!, only: (props.event!.enum as string[]).length === 1, data: props.data!.$ref, required: v.required as string[] };
  });

  it('declares Event as one variant per kind the stream sends, each with its data schema', () => {
    const variants = variantsOfEvent();
    // Every public kind of the event bus, the shutdown event the writer ends a stream with, and
    // the reset a resuming client gets when its missed events are no longer kept.
    expect(variants.map((v) => v.kind).sort()).toEqual([...PUBLIC_EVENT_KINDS, 'shutdown', 'reset'].sort());
    for (const v of variants) {
      expect([v.kind, v.only, v.data]).toEqual([v.kind, true, `#/components/schemas/${DATA_SCHEMAS[v.kind]}`]);
      expect(doc.components.schemas[DATA_SCHEMAS[v.kind]!]).toMatchObject({ type: 'object', additionalProperties: false });
      expect(v.required).toEqual(v.kind === 'shutdown' ? ['event', 'data'] : ['event', 'id', 'data']);
    }
  });

  it('references Event from GET /events, whose description names every kind and its schema', () => {
    const op = byId('streamEvents');
    expect(resolve(op.responses['200']!).content).toEqual({ 'text/event-stream': { schema: { $ref: '#/components/schemas/Event' } } });
    for (const [kind, schema] of Object.entries(DATA_SCHEMAS)) {
      expect(op.description).toContain(`\`${kind}\` (data \`${schema}\``);
    }
  });
});
