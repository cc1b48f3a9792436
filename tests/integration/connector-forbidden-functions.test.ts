/**
 * Server administration functions are refused before they are sent (query.forbidden_function),
 * on a real PostgreSQL and a real MariaDB, through the connector and through POST
 * /queries/preview: a read-only transaction would not stop them (the test databases sign in as
 * superuser/root, so each of them would run). Another backend of the same role survives an
 * attempt to terminate it; names in strings and comments are not refused; quoted, qualified and
 * mixed-case calls are.
 */
import postgres from 'postgres';
import type { ConnectorSession } from '../../src/domain/plugins/connector.js';
import { mysqlConnector } from '../../src/plugins/mysql/index.js';
import { postgresConnector } from '../../src/plugins/postgres/index.js';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import {
  collect, createMysqlScratch, createPgScratch, mysqlAdmin, mysqlRun, noSignal, type ScratchDb,
} from '../support/connector-dbs.js';
import { adminDatabaseUrl } from '../support/env.js';

let pg: ScratchDb;
let my: ScratchDb;
let pgSession: ConnectorSession;
let mySession: ConnectorSession;

beforeAll(async () => {
  [pg, my] = await Promise.all([createPgScratch(), createMysqlScratch()]);
  await pg.admin("create table notes (id int primary key, body text not null)");
  await pg.admin("insert into notes values (1, 'pg_terminate_backend(1) in the data')");
  await my.admin('CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(80) NOT NULL)');
  await my.admin("INSERT INTO notes VALUES (1, 'LOAD_FILE(1) in the data')");
  pgSession = postgresConnector.open(pg.config, { poolSize: 2, connectTimeoutMs: 5000 });
  mySession = mysqlConnector.open(my.config, { poolSize: 2, connectTimeoutMs: 5000 });
});

afterAll(async () => {
  await Promise.all([pgSession?.close(), mySession?.close()]);
  await Promise.all([pg?.drop(), my?.drop()]);
});

/** The error of running `sql` to the end, or the rows. */
async function attempt(session: ConnectorSession, sql: string): Promise<{ code: string; message: string } | { rows: unknown[][] }> {
  try {
    return await collect(await session.execute({ sql, params: [] }, { signal: noSignal(), timeoutMs: 5000, batchSize: 100 }));
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return { code: e.code ?? String(err), message: e.message ?? '' };
  }
}

function pgOnDb(): postgres.Sql {
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${pg.name}`;
  return postgres(url.toString(), { max: 1, onnotice: () => undefined });
}

describe('PostgreSQL', () => {
  test.each([
    ['pg_terminate_backend', 'select pg_terminate_backend(-1)'],
    ['pg_cancel_backend', 'select pg_cancel_backend(pid) from pg_stat_activity where pid = -1'],
    ['pg_reload_conf', 'select pg_reload_conf()'],
    ['pg_rotate_logfile', 'select pg_rotate_logfile()'],
    ['pg_read_file', "select pg_read_file('PG_VERSION')"],
    ['pg_read_binary_file', "select pg_read_binary_file('PG_VERSION')"],
    ['pg_stat_file', "select pg_stat_file('PG_VERSION')"],
    ['pg_ls_dir', "select * from pg_ls_dir('.')"],
    ['pg_ls_waldir', 'select * from pg_ls_waldir()'],
    ['pg_log_backend_memory_contexts', 'select pg_log_backend_memory_contexts(-1)'],
    ['pg_replication_origin_session_is_setup', 'select pg_replication_origin_session_is_setup()'],
    ['pg_stat_reset_single_table_counters', "select pg_stat_reset_single_table_counters('notes'::regclass)"],
    ['lo_export', "select lo_export(0, '/nonexistent/herald')"],
    ['dblink', "select * from dblink('dbname=postgres', 'select 1') as t(x int)"],
    ['set_config', "select set_config('search_path', 'nowhere', false)"],
    ['pg_advisory_lock', 'select pg_advisory_lock(4242)'],
    ['pg_try_advisory_lock', 'select pg_try_advisory_lock(4242)'],
    ['pg_notify', "select pg_notify('herald', 'x')"],
    ['query_to_xml', "select query_to_xml('select pg_cancel_backend(-1)', true, true, '')"],
    ['ts_stat', "select * from ts_stat('select to_tsvector(''a'')')"],
  ])('%s is refused before it runs, with query.forbidden_function naming it', async (name, sql) => {
    expect(await attempt(pgSession, sql)).toEqual({ code: 'query.forbidden_function', message: expect.stringMatching(new RegExp(`^${name} `)) });
  });

  test('pg_terminate_backend on another backend of the same role leaves it alive', async () => {
    const other = pgOnDb();
    try {
      const [{ pid }] = await other`select pg_backend_pid() as pid` as unknown as [{ pid: number }];
      expect(await attempt(pgSession, `select pg_terminate_backend(${pid})`)).toEqual({
        code: 'query.forbidden_function', message: 'pg_terminate_backend is a server administration function; Herald does not run it',
      });
      expect(await attempt(pgSession, `select pg_terminate_backend(pid) from pg_stat_activity where pid = ${pid}`)).toMatchObject({ code: 'query.forbidden_function' });
      expect(await attempt(pgSession, `select pg_cancel_backend(${pid})`)).toMatchObject({ code: 'query.forbidden_function' });
      // Still the same backend: a terminated one would fail this (postgres.js would open a new one with another pid).
      const [after] = await other`select pg_backend_pid() as pid` as unknown as [{ pid: number }];
      expect(after.pid).toBe(pid);
      const alive = await pg.admin('select count(*)::int as n from pg_stat_activity where pid = $1', [pid]);
      expect(alive).toEqual([{ n: 1 }]);
    } finally {
      await other.end();
    }
  });

  test.each([
    ['in upper case', 'SELECT PG_TERMINATE_BACKEND(-1)'],
    ['in mixed case', 'select Pg_Terminate_Backend(-1)'],
    ['qualified by its schema', 'select pg_catalog.pg_terminate_backend(-1)'],
    ['quoted', 'select "pg_terminate_backend"(-1)'],
    ['quoted and qualified', 'select "pg_catalog"."pg_terminate_backend"(-1)'],
    ['with Unicode escapes', 'select U&"pg\\005fterminate_backend"(-1)'],
    ['with a comment before its parenthesis', 'select pg_terminate_backend /* why not */ (-1)'],
    ['after a dollar-quoted string', 'select $x$ -- $x$, pg_terminate_backend(-1)'],
  ])('a call %s is refused', async (_name, sql) => {
    expect(await attempt(pgSession, sql)).toMatchObject({ code: 'query.forbidden_function', message: expect.stringMatching(/^pg_terminate_backend /) });
  });

  test.each([
    ['a string', "select 'pg_terminate_backend' as name", [['pg_terminate_backend']]],
    ['a call in a string', "select 'pg_terminate_backend(1)' as name", [['pg_terminate_backend(1)']]],
    ['a line comment', 'select 1 as x -- pg_cancel_backend(1)', [[1]]],
    ['a block comment', 'select 1 as x /* pg_cancel_backend(1) /* nested */ */', [[1]]],
    ['a dollar-quoted string', 'select $$pg_cancel_backend(1)$$ as x', [['pg_cancel_backend(1)']]],
    ['an E string', "select E'\\'pg_cancel_backend(1)' as x", [["'pg_cancel_backend(1)"]]],
    ['the data', 'select body from notes', [['pg_terminate_backend(1) in the data']]],
    ['pg_sleep (allowed: statement_timeout bounds it)', 'select 1 as x from pg_sleep(0)', [[1]]],
  ])('a name in %s is not refused', async (_name, sql, rows) => {
    expect(await attempt(pgSession, sql)).toEqual({ rows, batches: 1 });
  });

  test('COPY to a program or a file was refused already (it returns no rows) and still is', async () => {
    expect(await attempt(pgSession, "copy (select 1) to program 'true'")).toMatchObject({ code: 'query.not_read_only' });
    expect(await attempt(pgSession, "copy (select 1) to '/tmp/herald_t_copy'")).toMatchObject({ code: 'query.not_read_only' });
  });
});

describe('MariaDB', () => {
  test.each([
    ['load_file', "SELECT LOAD_FILE('/etc/hostname')"],
    ['load_file', "select load_file('/etc/hostname') as f"],
    ['load_file', "SELECT `LOAD_FILE`('/etc/hostname')"],
    ['load_file', "SELECT LOAD_FILE ('/etc/hostname')"],
    ['load_file', "SELECT /*! LOAD_FILE('/etc/hostname') */"],
    ['load_file', "SELECT /*M!100000 LOAD_FILE('/etc/hostname') */"],
    ['load_file', "SELECT 1--LOAD_FILE('/etc/hostname')\n"],
    ['get_lock', "SELECT GET_LOCK('herald_t_forbidden', 0)"],
    ['release_lock', "SELECT RELEASE_LOCK('herald_t_forbidden')"],
    ['release_all_locks', 'SELECT RELEASE_ALL_LOCKS()'],
    ['is_used_lock', "SELECT IS_USED_LOCK('herald_t_forbidden')"],
    ['sys_exec', "SELECT sys_exec('id')"],
    ['sys_eval', "SELECT sys_eval('id')"],
  ])('%s is refused before it runs (%s)', async (name, sql) => {
    expect(await attempt(mySession, sql)).toEqual({ code: 'query.forbidden_function', message: expect.stringMatching(new RegExp(`^${name} `)) });
  });

  test.each([
    ['KILL', 'KILL 1'],
    ['KILL QUERY', 'KILL QUERY 1'],
    ['SHUTDOWN', 'SHUTDOWN'],
    ['SET GLOBAL', 'SET GLOBAL max_connections = 1'],
    ['FLUSH', 'FLUSH PRIVILEGES'],
    ['SELECT … INTO OUTFILE', "SELECT 1 INTO OUTFILE '/tmp/herald_t_outfile'"],
    ['SELECT … INTO DUMPFILE', "SELECT 1 INTO DUMPFILE '/tmp/herald_t_dumpfile'"],
  ])('%s was refused already by the read-only rules and still is', async (_name, sql) => {
    expect(await attempt(mySession, sql)).toMatchObject({ code: 'query.not_read_only' });
  });

  test('KILL of another session is refused and that session lives on', async () => {
    const other = mysqlAdmin(my.name);
    try {
      const [row] = await mysqlRun(other, 'SELECT CONNECTION_ID() AS id') as Array<{ id: number }>;
      expect(await attempt(mySession, `KILL ${row!.id}`)).toMatchObject({ code: 'query.not_read_only' });
      expect(await mysqlRun(other, 'SELECT CONNECTION_ID() AS id')).toEqual([{ id: row!.id }]);
    } finally {
      other.end();
    }
  });

  test.each([
    ['a string', "SELECT 'LOAD_FILE' AS name", [['LOAD_FILE']]],
    ['a call in a string', "SELECT 'load_file(1)' AS name", [['load_file(1)']]],
    ['a # comment', "SELECT 1 AS x # LOAD_FILE('/etc/hostname')", [[1]]],
    ['a -- comment', "SELECT 1 AS x -- LOAD_FILE('/etc/hostname')", [[1]]],
    ['a block comment', "SELECT 1 AS x /* GET_LOCK('a', 0) */", [[1]]],
    ['the data', 'SELECT body FROM notes', [['LOAD_FILE(1) in the data']]],
  ])('a name in %s is not refused', async (_name, sql, rows) => {
    expect(await attempt(mySession, sql)).toEqual({ rows, batches: 1 });
  });
});

describe('POST /queries/preview', () => {
  let h: Herald;
  let editor: SessionClient;
  let pgId: string;
  let myId: string;

  beforeAll(async () => {
    h = await startHerald();
    const admin = await setupAdmin(h);
    editor = await createSignedInUser(h, admin, { name: 'Fiona', email: 'fiona@example.com', role: 'editor' });
    const connection = (name: string, type: string, c: ScratchDb['config']) => ({
      name, type, host: c.host, port: c.port, database: c.database, username: c.username, ssl_mode: 'disable', ...(c.password ? { password: c.password } : {}),
    });
    pgId = (await admin.post('/api/v1/connections').send(connection('Pg', 'postgres', pg.config)).expect(201)).body.id;
    myId = (await admin.post('/api/v1/connections').send(connection('Maria', 'mysql', my.config)).expect(201)).body.id;
  });
  afterAll(async () => {
    await h?.stop();
  });

  test('an editor cannot terminate another backend through preview: 422 query.forbidden_function, and the backend lives on', async () => {
    const other = pgOnDb();
    try {
      const [{ pid }] = await other`select pg_backend_pid() as pid` as unknown as [{ pid: number }];
      const res = await editor.post('/api/v1/queries/preview').send({ connection_id: pgId, sql: `select pg_terminate_backend(${pid})` });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'query.forbidden_function', detail: expect.stringContaining('pg_terminate_backend') });
      const all = await editor.post('/api/v1/queries/preview').send({ connection_id: pgId, sql: 'select pg_catalog."pg_terminate_backend"(pid) from pg_stat_activity' });
      expect(all.body.code).toBe('query.forbidden_function');
      const [after] = await other`select pg_backend_pid() as pid` as unknown as [{ pid: number }];
      expect(after.pid).toBe(pid);
    } finally {
      await other.end();
    }
  });

  test.each([
    ['pg_reload_conf', 'select pg_reload_conf()'],
    ['pg_read_file', "select pg_read_file('PG_VERSION')"],
    ['set_config', "select set_config('work_mem', '1MB', false)"],
  ])('PostgreSQL %s through preview is 422 query.forbidden_function', async (name, sql) => {
    const res = await editor.post('/api/v1/queries/preview').send({ connection_id: pgId, sql });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'query.forbidden_function', detail: expect.stringContaining(name) });
  });

  test('MariaDB LOAD_FILE through preview is 422 query.forbidden_function', async () => {
    for (const sql of ["SELECT LOAD_FILE('/etc/hostname')", "SELECT /*! LOAD_FILE('/etc/hostname') */"]) {
      const res = await editor.post('/api/v1/queries/preview').send({ connection_id: myId, sql });
      expect({ sql, status: res.status, code: res.body.code }).toEqual({ sql, status: 422, code: 'query.forbidden_function' });
      expect(res.body.detail).toContain('load_file');
    }
  });

  test('names in strings and comments preview as usual', async () => {
    const a = await editor.post('/api/v1/queries/preview').send({ connection_id: pgId, sql: "select 'pg_terminate_backend' as name -- pg_cancel_backend(1)" });
    expect(a.status).toBe(200);
    expect(a.body.rows).toEqual([['pg_terminate_backend']]);
    const b = await editor.post('/api/v1/queries/preview').send({ connection_id: myId, sql: "SELECT 'LOAD_FILE(1)' AS name # LOAD_FILE('/etc/hostname')" });
    expect(b.status).toBe(200);
    expect(b.body.rows).toEqual([['LOAD_FILE(1)']]);
  });
});
