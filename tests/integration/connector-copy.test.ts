/**
 * The PostgreSQL connector reads the rows of a statement without parameters through COPY (…) TO
 * STDOUT (src/plugins/postgres/copy.ts): the same values as through a cursor (the same statement
 * with a parameter takes the cursor), escapes and multi-byte text across chunks included; an
 * error with the first row or the time limit rejects as before and the connection stays usable.
 */
import net, { type AddressInfo } from 'node:net';
import postgres from 'postgres';
import { postgresConnector } from '../../src/plugins/postgres/index.js';
import { copyEligible, copyRows } from '../../src/plugins/postgres/copy.js';
import { textDecoderFor } from '../../src/plugins/postgres/values.js';
import type { CellValue, ConnectorSession } from '../../src/domain/plugins/connector.js';
import { collect, createPgScratch, noSignal, outcome, type ScratchDb } from '../support/connector-dbs.js';
import { holdTableLock } from '../support/table-lock.js';
import { until } from '../support/wait.js';

let pg: ScratchDb;
let session: ConnectorSession;
let admin: postgres.Sql;

beforeAll(async () => {
  pg = await createPgScratch();
  session = postgresConnector.open(pg.config, { poolSize: 1, connectTimeoutMs: 5000 });
  admin = postgres({ host: pg.config.host, port: pg.config.port, database: pg.config.database, username: pg.config.username, max: 1, onnotice: () => undefined });
});

afterAll(async () => {
  await admin?.end();
  await session?.close();
  await pg?.drop();
});

const options = (batchSize = 100, timeoutMs = 10_000) => ({ signal: noSignal(), timeoutMs, batchSize });
async function rows(sql: string, params: Array<string | number> = [], batchSize = 100): Promise<CellValue[][]> {
  return (await collect(await session.execute({ sql, params }, options(batchSize)))).rows;
}

it('takes COPY only for statements without parameters or semicolons that COPY accepts', () => {
  expect(copyEligible('select 1', [])).toBe(true);
  expect(copyEligible('  (select 1) union all (select 2)', [])).toBe(true);
  expect(copyEligible('WITH t AS (select 1) select * from t', [])).toBe(true);
  expect(copyEligible('values (1)', [])).toBe(true);
  expect(copyEligible('table sales', [])).toBe(true);
  expect(copyEligible('select $1::int', [1])).toBe(false);
  expect(copyEligible('select 1;', [])).toBe(false);
  expect(copyEligible("select ';'", [])).toBe(false);
  expect(copyEligible('show search_path', [])).toBe(false);
  expect(copyEligible('explain select 1', [])).toBe(false);
  expect(copyEligible('-- comment\nselect 1', [])).toBe(false);
});

it('decodes COPY text lines: tabs between values, \\N for NULL, backslash escapes', () => {
  const decoders = [textDecoderFor(23), textDecoderFor(25), textDecoderFor(16)];
  expect(copyRows('1\ta\\tb\\nc\\\\d\\re\tt\n2\t\\N\tf\n3\t\\\\N\t\\N', decoders)).toEqual([
    [1, 'a\tb\nc\\d\re', true], [2, null, false], [3, '\\N', null],
  ]);
});

it('runs an eligible statement as COPY on the server', async () => {
  // Seen while it runs: the server sends a short COPY's rows at its end, and the check and the
  // ROLLBACK that ride behind it follow at once, so after execute() the text would be theirs.
  // So the statement's rows come from a function that reads a table this test holds locked: it
  // waits at the server until the test has looked (however long a loaded machine takes), and
  // only once it executes: the Describe before it names the function, not the table.
  await admin`create table gate (n int)`;
  await admin`insert into gate values (1)`;
  await admin.unsafe('create function gate_n() returns int language plpgsql as $$ begin return (select n from gate); end $$');
  const holder = postgres({ host: pg.config.host, port: pg.config.port, database: pg.config.database, username: pg.config.username, max: 1, onnotice: () => undefined });
  try {
    const gate = await holdTableLock(holder, 'gate');
    const opening = session.execute({ sql: 'select g, gate_n() from generate_series(1, 2) g', params: [] }, options(1, 60_000));
    let seen: string[];
    try {
      // (Polled until the statement waits for the lock: its Describe comes first and shows its own text for a moment.)
      seen = await until(async () => {
        const active = await admin`select query, wait_event_type from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and query like '%generate_series(1, 2) g%'`;
        return active.some((r) => r.wait_event_type === 'Lock') && active.map((r) => r.query as string);
      }, 'the statement to wait for the lock on gate', 30_000, 10);
    } finally {
      await gate.release();
    }
    expect(seen).toEqual([expect.stringMatching(/^copy \(\n/)]);
    expect((await collect(await opening)).rows).toHaveLength(2);
  } finally {
    await holder.end();
  }
});

it('gives the same values through COPY as through the cursor, escapes and multi-byte text across chunks included', async () => {
  const select = (where: string) => `select g, $$tab\there$$ || g as t, E'line\\nbreak\\r\\\\back' as e, '\\N' as n_text, null::text as nothing,
      '' as empty, 'é漢😀' || repeat('ü', g % 7) as multi, g * 1.5 as dec, (g % 2 = 0) as even, '2024-01-01 10:00:00+02'::timestamptz + g * interval '1 day' as at,
      '\\x00ff'::bytea as bin, '{"a": [1, 2]}'::jsonb as doc
    from generate_series(1, 20000) g ${where}`;
  const viaCopy = await rows(select(''), [], 700);
  const viaCursor = await rows(select('where g > $1'), [0], 700);
  expect(viaCopy).toHaveLength(20000);
  expect(viaCopy).toEqual(viaCursor);
  expect(viaCopy[1]).toEqual([2, 'tab\there2', 'line\nbreak\r\\back', '\\N', null, '', 'é漢😀üü', '3.0', true, '2024-01-03T08:00:00Z', 'AP8=', '{"a": [1, 2]}']);
});

/** A statement's rows through executeNdjson: its NDJSON text and row count, and how it came (lines or values). */
async function ndjson(sql: string, params: Array<string | number> = []): Promise<{ text: string; rows: number; as: 'lines' | 'values' }> {
  const stream = await session.executeNdjson!({ sql, params }, options(700));
  if (!('ndjson' in stream)) {
    const { rows: values } = await collect(stream);
    return { text: values.map((row) => `${JSON.stringify(row)}\n`).join(''), rows: values.length, as: 'values' };
  }
  const parts: Buffer[] = [];
  let count = 0;
  for await (const batch of stream.ndjson) { parts.push(batch.lines); count += batch.rows; }
  return { text: Buffer.concat(parts).toString('utf8'), rows: count, as: 'lines' };
}

it('writes COPY\'s rows straight as NDJSON lines, byte for byte the JSON of the values the cursor gives (every type, random floats and text)', async () => {
  await admin.unsafe(`create table mixed as select g, $$tab\there$$ || g as t, E'line\\nbreak\\r\\\\back' || chr(11) || chr(1 + g % 31) as e, '\\N' as n_text,
      null::text as nothing, '' as empty, 'é漢😀"' || repeat('ü', g % 7) as multi, (g * 1.5)::numeric as dec, (g % 2 = 0) as even,
      '2024-01-01 10:00:00+02'::timestamptz + g * interval '1 day 1.5 second' as at, '2024-01-01 10:00:00'::timestamp - g * interval '3 months' as naive,
      date '2000-01-01' - g * 3 as day, '\\x00ff'::bytea as bin, jsonb_build_object('a', g, 'b', 'q"' || g) as doc,
      (random() * 10 ^ (random() * 80 - 40))::float8 * (case when random() < 0.5 then -1 else 1 end) as f8,
      (random() * 10 ^ (random() * 20 - 10))::float4 as f4, (random() - 0.5)::float8 * 1e300 as huge,
      case g % 4 when 0 then 'NaN'::float8 when 1 then '-0'::float8 when 2 then 'infinity'::float8 else g / 7.0::float8 end as odd,
      (9007199254740000 + g * 7)::bigint as big, g::int2 as small, (g::oid) as o, array[g, g + 1] as arr, interval '1 day' * g as span,
      '10:00:00+05:30'::timetz as tz, md5(g::text)::uuid as id, (g * 0.1)::float8 as tenth,
      (select string_agg(chr(32 + ((g * 7 + i * 13) % 95)), '') from generate_series(1, g % 40) i) as printable
    from generate_series(1, 20000) g`);
  const viaLines = await ndjson('select * from mixed order by g');
  const viaCursor = await ndjson('select * from mixed where g > $1 order by g', [0]);
  expect(viaLines.as).toBe('lines');
  expect(viaCursor.as).toBe('values');
  expect(viaLines.rows).toBe(20000);
  expect(viaLines.text).toBe(viaCursor.text);
  expect((JSON.parse(viaLines.text.split('\n')[1]!) as unknown[]).slice(0, 4)).toEqual([2, 'tab\there2', 'line\nbreak\r\\back\v\u0003', '\\N']);
});

it('stops a COPY read as NDJSON lines when the consumer leaves the loop, and answers a statement with parameters as values', async () => {
  const stream = await session.executeNdjson!({ sql: "select g, repeat('x', 1000), case when g > 200 then pg_sleep(30) end from generate_series(1, 2000000) g", params: [] }, options(100, 120_000));
  if (!('ndjson' in stream)) throw new Error('expected NDJSON lines');
  let seen = 0;
  for await (const batch of stream.ndjson) { seen += batch.rows; if (seen >= 100) break; }
  expect(seen).toBeGreaterThanOrEqual(100);
  expect(await rows('select 7 as seven')).toEqual([[7]]);
  const left = await admin`select count(*)::int as n from pg_stat_activity where pid <> pg_backend_pid() and query like '%generate_series(1, 2000000)%'and state = 'active'`;
  expect(left[0]!.n).toBe(0);
  expect(await ndjson('select $1::int + 1 as n', [41])).toEqual({ text: '[42]\n', rows: 1, as: 'values' });
  expect(await ndjson('select 41 + 1 as n')).toEqual({ text: '[42]\n', rows: 1, as: 'lines' });
});

it('rejects an error with the first row, and the time limit, as before; the connection is used again after', async () => {
  expect(await outcome(session, 'select 1 / (g - 1) from generate_series(1, 3) g')).toBe('query.failed');
  await expect(session.execute({ sql: 'select pg_sleep(5)', params: [] }, options(100, 300))).rejects.toMatchObject({ code: 'query.timeout' });
  expect(await outcome(session, 'select 1 / (g - 500) from generate_series(1, 100000) g')).toBe('query.failed');
  expect(await rows('select 42 as answer')).toEqual([[42]]);
});

it('stops a COPY on the server when the consumer leaves the loop (not read to its end), and the connection is used again after', async () => {
  // 200 rows of 1 kB (past the server's output buffer), then 30 s of sleep per row: unless the
  // statement is cancelled, leaving the loop would wait past the test's own time limit (30 s).
  const stream = await session.execute({ sql: "select g, repeat('x', 1000), case when g > 200 then pg_sleep(30) end from generate_series(1, 2000000) g", params: [] }, options(100, 120_000));
  let seen = 0;
  for await (const batch of stream.batches) { seen += batch.length; if (seen >= 100) break; }
  expect(seen).toBe(100);
  expect(await rows('select 7 as seven')).toEqual([[7]]);
  const left = await admin`select count(*)::int as n from pg_stat_activity where pid <> pg_backend_pid() and query like '%generate_series(1, 2000000)%'and state = 'active'`;
  expect(left[0]!.n).toBe(0);
});

/**
 * The connector on one connection through a proxy on loopback, which hands each chunk the
 * connector writes to `onWrite` before passing it on; close() ends both.
 */
async function throughProxy(onWrite: (chunk: Buffer) => void, onReply: (chunk: Buffer, send: (piece: Buffer) => void) => void = (chunk, send) => send(chunk)):
  Promise<{ session: ConnectorSession; close(): Promise<void> }> {
  const proxy = net.createServer((client) => {
    const server = net.connect(pg.config.port, pg.config.host);
    client.on('data', (chunk: Buffer) => { onWrite(chunk); server.write(chunk); });
    server.on('data', (chunk: Buffer) => onReply(chunk, (piece) => client.write(piece)));
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
    client.on('error', () => undefined); server.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const session = postgresConnector.open({ ...pg.config, host: '127.0.0.1', port: (proxy.address() as AddressInfo).port }, { poolSize: 1, connectTimeoutMs: 5000 });
  return {
    session,
    async close() {
      await session.close();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

it('reads the same rows when the server\'s bytes arrive cut at random places (messages split across socket reads)', async () => {
  await admin`create table cut as select g, 'é漢😀' || repeat('x', g % 300) as t, g * 0.5 as half from generate_series(1, 5000) g`;
  let seed = 7;
  const next = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return 1 + (seed % n); };
  const proxied = await throughProxy(() => undefined, (chunk, send) => {
    for (let p = 0; p < chunk.length;) { const n = next(p % 3 === 0 ? 7 : 400); send(chunk.subarray(p, p + n)); p += n; }
  });
  try {
    const viaCut = (await collect(await proxied.session.execute({ sql: 'select * from cut order by g', params: [] }, options(700)))).rows;
    const direct = await rows('select * from cut order by g', [], 700);
    expect(viaCut).toHaveLength(5000);
    expect(viaCut).toEqual(direct);
  } finally {
    await proxied.close();
  }
});

it('sends nothing for a run stopped while its column types are looked up, and its one connection is used again after', async () => {
  // An enum the connector has not met: its name is looked up on the connection before the
  // COPY goes out. A proxy stops the run as that lookup goes by; 20,000 rows (past what
  // postgres.js buffers before it pauses the socket) would hold the answers behind an unread COPY.
  await admin`create type mood as enum ('sad', 'happy')`;
  await admin`create table moods as select g as id, (case when g % 2 = 0 then 'happy' else 'sad' end)::mood as m, repeat('x', 50) as pad from generate_series(1, 20000) g`;
  const stop = new AbortController();
  const proxied = await throughProxy((chunk) => { if (chunk.includes('any($1::oid[])')) stop.abort(new Error('stopped by the test')); });
  try {
    await expect(proxied.session.execute({ sql: 'select id, m, pad from moods', params: [] }, { signal: stop.signal, timeoutMs: 10_000, batchSize: 100 }))
      .rejects.toThrow('stopped by the test');
    expect((await collect(await proxied.session.execute({ sql: 'select 1 as one', params: [] }, options()))).rows).toEqual([[1]]);
    const copies = await admin`select count(*)::int as n from pg_stat_activity where pid <> pg_backend_pid() and query like 'copy (%moods%'`;
    expect(copies[0]!.n).toBe(0);
  } finally {
    await proxied.close();
  }
});

it('sends a run in two writes: BEGIN with the Describe and its Sync, then the COPY with the check and the ROLLBACK (six before, then four)', async () => {
  // A proxy on loopback counts what the connector writes; a write that waits for an answer
  // arrives alone, so writes can only merge here, never split. (Unpatched, postgres.js wrote a
  // Describe's Sync only once the columns were back: a write and a round trip more.)
  let writes = 0;
  const proxied = await throughProxy(() => { writes += 1; });
  try {
    const run = async () => (await collect(await proxied.session.execute({ sql: 'select 1 as one', params: [] }, options()))).rows;
    expect(await run()).toEqual([[1]]); // the connection made, its types known
    writes = 0;
    expect(await run()).toEqual([[1]]);
    expect(writes).toBeLessThanOrEqual(2);
    expect(writes).toBeGreaterThan(0);
  } finally {
    await proxied.close();
  }
});
