/**
 * Reads tagged by the store's row stamps (src/handlers/entity-tags.ts stampedRead, and the
 * handlers of connections, queries, channels and runs): the stamps are read before the answer;
 * a tag named by If-None-Match answers 304 without reading or building the answer.
 */
import { entityTag, stampedRead } from '../../src/handlers/entity-tags.js';
import { getConnection } from '../../src/handlers/connections/get-connection.js';
import { listRuns } from '../../src/handlers/runs/list-runs.js';
import { getChannel } from '../../src/handlers/channels/get-channel.js';
import type { RowStamps } from '../../src/domain/reads/row-stamps.js';

const parts = ['op', 'view-1', 'user:u1:editor', 'id-1'];

describe('stampedRead', () => {
  it('reads the stamps first, then the answer, and tags the answer with the stamps', async () => {
    const order: string[] = [];
    const res = await stampedRead(undefined, parts, async () => { order.push('stamps'); return 'a/1/100/'; },
      async () => { order.push('read'); return { id: 'id-1' }; });
    expect(order).toEqual(['stamps', 'read']);
    expect(res).toEqual({ status: 200, headers: { ETag: entityTag([...parts, 'a/1/100/']) }, body: { id: 'id-1' } });
  });

  it('answers 304 to its tag (weak, among others, or `*`) without reading the answer', async () => {
    const tag = entityTag([...parts, 'a/1/100/']);
    for (const asked of [tag, tag.slice(2), `W/"x", ${tag}`, '*']) {
      let reads = 0;
      const read = async () => { reads += 1; return { id: 'id-1' }; };
      expect(await stampedRead(asked, parts, async () => 'a/1/100/', read)).toEqual({ status: 304, headers: { ETag: tag } });
      expect(reads).toBe(0);
    }
  });

  it('answers 200 with the new tag when the stamps moved', async () => {
    const old = entityTag([...parts, 'a/1/100/']);
    const res = await stampedRead(old, parts, async () => 'a/1/101/', async () => ({ id: 'id-1' }));
    expect(res).toMatchObject({ status: 200, headers: { ETag: entityTag([...parts, 'a/1/101/']) } });
  });

  it('with no stamps (no such row) lets the read answer: its 404, or, made meanwhile, the answer untagged', async () => {
    await expect(stampedRead('*', parts, async () => undefined, async () => { throw new Error('404'); })).rejects.toThrow('404');
    expect(await stampedRead('*', parts, async () => undefined, async () => ({ id: 'new' }))).toEqual({ status: 200, body: { id: 'new' } });
  });
});

describe('the handlers on the 304 path', () => {
  const principal = { kind: 'api_key', user: { id: 'u1', role: 'editor' } };
  const refusing = () => { throw new Error('the answer was read'); };
  const stamps: RowStamps = {
    one: async (kind, id) => `${kind}:${id}:1`,
    page: async () => 'p',
    run: async (id) => `run:${id}`,
    runs: async (filter) => `runs:${filter.status ?? ''}`,
  };
  const request = (params: Record<string, string>, ifNoneMatch?: string, query: Record<string, unknown> = {}) =>
    ({ params, query, headers: ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}, ctx: { principal } }) as never;

  it('getConnection, getChannel and listRuns read nothing but the stamps to answer 304', async () => {
    const connections = { get: refusing } as never;
    const gitops = { managementOf: refusing, withManagement: refusing } as never;
    // Another tag: the answer is read (and here refused).
    await expect(getConnection({ connections, gitops, stamps })(request({ connectionId: 'c1' }, 'W/"none"'))).rejects.toThrow('the answer was read');
    // The tag a 200 would carry (the operation, the view's revision, the caller, the id, the stamps), asked for.
    const connectionTag = entityTag(['getConnection', 'connection-1', 'api_key:u1:editor', 'c1', 'connection:c1:1']);
    expect(await getConnection({ connections, gitops, stamps })(request({ connectionId: 'c1' }, connectionTag)))
      .toEqual({ status: 304, headers: { ETag: connectionTag } });

    const channels = { get: refusing, list: refusing, settingsView: refusing } as never;
    const plugins = { list: () => [{ id: 'webhook', version: '1.0.0', kind: 'channel' }], channel: () => undefined } as never;
    const channelTag = entityTag(['getChannel', 'channel-1', 'webhook@1.0.0', 'api_key:u1:editor', 'h1', 'channel:h1:1']);
    expect(await getChannel({ channels, gitops, stamps, plugins })(request({ channelId: 'h1' }, channelTag)))
      .toEqual({ status: 304, headers: { ETag: channelTag } });

    const runs = { list: refusing } as never;
    const runsTag = entityTag(['listRuns', 'run-1', 'api_key:u1:editor', 50, undefined, 'success', undefined, undefined, 'runs:success']);
    expect(await listRuns({ runs, stamps })(request({}, runsTag, { status: 'success' }))).toEqual({ status: 304, headers: { ETag: runsTag } });
  });
});
