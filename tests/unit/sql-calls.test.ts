/**
 * The lexers that find the functions a statement calls (src/plugins/shared/sql-calls.ts) and the
 * connectors' deny lists: names in strings and comments do not count; quoted, qualified,
 * mixed-case, Unicode-escaped and executable-comment forms do. The real servers are in
 * tests/integration/connector-forbidden-functions.test.ts.
 */
import { calledFunctions, variants } from '../../src/plugins/shared/sql-calls.js';
import { postgresDenyList } from '../../src/plugins/postgres/forbidden.js';
import { mysqlDenyList } from '../../src/plugins/mysql/forbidden.js';

const pgCalls = (sql: string) => calledFunctions(sql, variants('postgres')[0]!).map((c) => c.name);
const pgDenied = (sql: string) => postgresDenyList.find(sql)?.name ?? null;
const myDenied = (sql: string) => mysqlDenyList.find(sql)?.name ?? null;

it('lists the calls of a PostgreSQL statement, qualified or not, across whitespace and comments', () => {
  expect(pgCalls('select count(*), pg_catalog.lower (x), "Upper"/* c */(y) from t where f(1) > 0')).toEqual(['count', 'lower', 'upper', 'f']);
});

test.each([
  ['plain', 'select pg_terminate_backend(pid) from pg_stat_activity'],
  ['upper case', 'SELECT PG_TERMINATE_BACKEND(1)'],
  ['mixed case', 'select Pg_Terminate_Backend(1)'],
  ['schema-qualified', 'select pg_catalog.pg_terminate_backend(1)'],
  ['quoted schema and name', 'select "pg_catalog"."pg_terminate_backend"(1)'],
  ['quoted name', 'select "pg_terminate_backend"(1)'],
  ['spaces and a comment before the parenthesis', 'select pg_terminate_backend /* x */ (1)'],
  ['a line comment before the parenthesis', 'select pg_terminate_backend --x\n(1)'],
  ['Unicode escapes', 'select U&"pg\\005fterminate_backend"(1)'],
  ['Unicode escapes with UESCAPE', "select U&\"pg!005fterminate_backend\" UESCAPE '!' (1)"],
  ['in FROM', 'select * from pg_terminate_backend(1)'],
  ['after a nested comment', 'select /* a /* b */ still comment */ pg_terminate_backend(1)'],
  ['after a dollar-quoted string', 'select $$ pg_cancel_backend(1) $$, pg_terminate_backend(1)'],
  ['after a tagged dollar quote containing $$', 'select $t$ $$ $t$, pg_terminate_backend(1)'],
  ['after an E string with an escaped quote', "select E'\\'', pg_terminate_backend(1)"],
  ['after a string with a trailing backslash (standard_conforming_strings on)', "select 'C:\\', pg_terminate_backend(1), '\\'"],
  ['glued to a number', 'select 1pg_terminate_backend(1)'],
  ['an identifier with $ before a would-be dollar quote', 'select 1 as a$$, pg_terminate_backend(1) --$$'],
  ['after a parameter', 'select $1, pg_terminate_backend($1)'],
])('PostgreSQL: pg_terminate_backend is found (%s)', (_name, sql) => {
  expect(pgDenied(sql)).toBe('pg_terminate_backend');
});

test.each([
  ['a string', "select 'pg_terminate_backend' as name"],
  ['a string with a call in it', "select 'pg_terminate_backend(1)' as name"],
  ['a line comment', 'select 1 -- pg_cancel_backend(1)'],
  ['a block comment', 'select 1 /* pg_cancel_backend(1) */'],
  ['a nested block comment', 'select 1 /* /* */ pg_cancel_backend(1) */'],
  ['a dollar-quoted string', 'select $$pg_cancel_backend(1)$$'],
  ['a tagged dollar-quoted string', 'select $q$ pg_cancel_backend(1) $q$'],
  ['an E string', "select E'\\' pg_cancel_backend(1)'"],
  ['a column name that is no call', 'select pg_cancel_backend from t'],
  ['a name quoted as a regproc', "select 'pg_cancel_backend'::regproc"],
  ['a similar name', 'select my_pg_cancel_backend(1), pg_cancel_backend_log(2)'],
  ['pg_sleep', 'select pg_sleep(1)'],
  ['a transaction-level advisory lock', 'select pg_advisory_xact_lock(1)'],
  ['current_setting', "select current_setting('search_path')"],
  ['the pg_file_settings view', 'select * from pg_file_settings'],
])('PostgreSQL: nothing is refused for %s', (_name, sql) => {
  expect(pgDenied(sql)).toBeNull();
});

test.each([
  ['pg_cancel_backend(1)', 'pg_cancel_backend'],
  ['pg_reload_conf()', 'pg_reload_conf'],
  ["pg_read_file('/etc/passwd')", 'pg_read_file'],
  ["pg_ls_waldir()", 'pg_ls_waldir'],
  ["pg_stat_reset_shared('bgwriter')", 'pg_stat_reset_shared'],
  ["set_config('search_path', 'x', false)", 'set_config'],
  ['pg_advisory_lock(1)', 'pg_advisory_lock'],
  ['pg_try_advisory_lock_shared(1)', 'pg_try_advisory_lock_shared'],
  ["dblink_exec('x', 'y')", 'dblink_exec'],
  ["query_to_xml('select pg_cancel_backend(1)', true, true, '')", 'query_to_xml'],
  ["ts_stat('select 1')", 'ts_stat'],
  ["pg_create_logical_replication_slot('s', 'test_decoding')", 'pg_create_logical_replication_slot'],
  ["pg_replication_origin_create('o')", 'pg_replication_origin_create'],
  ["lo_export(1, '/tmp/x')", 'lo_export'],
  ["pg_notify('c', 'p')", 'pg_notify'],
])('PostgreSQL: select %s is refused', (call, name) => {
  expect(pgDenied(`select ${call}`)).toBe(name);
});

test.each([
  ['plain', "SELECT LOAD_FILE('/etc/passwd')"],
  ['lower case', "select load_file('/etc/passwd')"],
  ['backticks', "SELECT `load_file`('/etc/passwd')"],
  ['a space before the parenthesis', "SELECT LOAD_FILE ('/etc/passwd')"],
  ['an executable comment', "SELECT /*! LOAD_FILE('/etc/passwd') */"],
  ['a versioned executable comment', "SELECT /*!50000 LOAD_FILE('/etc/passwd') */"],
  ['a MariaDB executable comment', "SELECT /*M!100100 LOAD_FILE('/etc/passwd') */"],
  ['-- without a space (two minus signs)', "SELECT 1--LOAD_FILE('/etc/passwd')"],
  ['"…" under ANSI_QUOTES', "SELECT \"load_file\"('/etc/passwd')"],
  ['after a string whose backslash NO_BACKSLASH_ESCAPES makes literal', "SELECT '\\', LOAD_FILE('/etc/passwd'), '\\'"],
  ['after a comment that does not nest', "SELECT /* /* */ LOAD_FILE('/etc/passwd') -- */"],
])('MySQL: LOAD_FILE is found (%s)', (_name, sql) => {
  expect(myDenied(sql)).toBe('load_file');
});

test.each([
  ['a string', "SELECT 'LOAD_FILE(1)' AS x"],
  ['a double-quoted string', 'SELECT "load_file" AS x'],
  ['a # comment', "SELECT 1 # LOAD_FILE('/etc/passwd')"],
  ['a -- comment', "SELECT 1 -- LOAD_FILE('/etc/passwd')"],
  ['a block comment', "SELECT 1 /* LOAD_FILE('/etc/passwd') */"],
  ['a string with a doubled quote', "SELECT 'it''s LOAD_FILE(1)'"],
  ['a column named kill', 'SELECT kill FROM game'],
  ['SLEEP and BENCHMARK', "SELECT SLEEP(1), BENCHMARK(10, MD5('x'))"],
])('MySQL: nothing is refused for %s', (_name, sql) => {
  expect(myDenied(sql)).toBeNull();
});

test.each([
  ["GET_LOCK('a', 0)", 'get_lock'],
  ["RELEASE_LOCK('a')", 'release_lock'],
  ['RELEASE_ALL_LOCKS()', 'release_all_locks'],
  ["IS_USED_LOCK('a')", 'is_used_lock'],
  ["sys_exec('id')", 'sys_exec'],
  ["sys_eval('id')", 'sys_eval'],
])('MySQL: SELECT %s is refused', (call, name) => {
  expect(myDenied(`SELECT ${call}`)).toBe(name);
});

it('MySQL: a name after a backslash-escaped quote counts, since under NO_BACKSLASH_ESCAPES it would be code (the cautious reading wins)', () => {
  expect(myDenied("SELECT 'it\\'s LOAD_FILE(1)'")).toBe('load_file');
  expect(myDenied("SELECT 'it\\'s fine'")).toBeNull();
});
