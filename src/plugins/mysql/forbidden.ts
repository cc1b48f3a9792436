/**
 * Functions the mysql connector refuses to run (query.forbidden_function), checked on the
 * statement's text before it is sent (src/plugins/shared/sql-calls.ts), executable comments
 * (/*! … *\/) included. A read-only transaction does not stop them.
 *
 * What the other guards already refuse (tests/integration/connector-mysql-read-only.test.ts and
 * connector-forbidden-functions.test.ts show it on a real MariaDB): KILL, SHUTDOWN, SET GLOBAL,
 * SET, FLUSH, … (a statement must begin with SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN or
 * DESCRIBE: execute.ts); SELECT … INTO OUTFILE / DUMPFILE / @var (no result set, refused before it
 * runs); LOAD DATA [LOCAL] INFILE. GET_LOCK is also released after the statement and refused then,
 * but refusing it here means it never waits for, or takes, a lock at all.
 *
 * Session settings: max_statement_time / max_execution_time bound every statement (BENCHMARK and
 * SLEEP included, so they are allowed) and the transaction is READ ONLY; MariaDB and MySQL have
 * no session setting that forbids LOAD_FILE or named locks (secure_file_priv is server-wide), so
 * the database user's privileges are the other defence (README: no FILE, SUPER, PROCESS, …).
 */
import { denyList, type DeniedFunctions } from '../shared/sql-calls.js';

export const MYSQL_DENIED_FUNCTIONS: readonly DeniedFunctions[] = [
  {
    why: 'reads files on the database server',
    names: ['load_file'],
  },
  {
    why: 'runs programs on the database server',
    names: ['sys_exec', 'sys_eval', 'sys_bineval', 'sys_set'],
  },
  {
    why: 'takes or inspects named locks of the database session, which would outlive the statement on a pooled connection',
    names: ['get_lock', 'release_lock', 'release_all_locks', 'is_used_lock', 'is_free_lock'],
  },
];

export const mysqlDenyList = denyList('mysql', MYSQL_DENIED_FUNCTIONS);
