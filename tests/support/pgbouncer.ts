/**
 * A PgBouncer of the test's own, from Debian's package (scripts/ensure-services.sh installs it
 * under `make test`): its own folder under the OS temp dir, a free port on 127.0.0.1, transaction
 * pooling with a small pool (so pooling really happens: many clients share a few server
 * connections), in front of the test suite's PostgreSQL.
 *
 * Clients log in as any role the PostgreSQL has, without a password (`auth_type = trust`; the
 * roles are looked up with `auth_query` as the suite's superuser). PgBouncer refuses to run as
 * root: as root it runs as `postgres` (or `herald-pg`, or `nobody`) through setpriv.
 *
 * `restart()` kills it (SIGKILL: a crash, every client and server connection cut) and starts a
 * new one on the same port; `stop()` kills it and removes the folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminDatabaseUrl } from './env.js';
import { freePort } from './child-process.js';

export interface PgBouncer {
  port: number;
  /** A URL to `database` through this PgBouncer, as `user` (default: the suite's own user). */
  url(database: string, user?: string): string;
  /** Kills PgBouncer (SIGKILL) and starts it again on the same port; resolves once it accepts. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const MISSING = 'pgbouncer is not installed: run scripts/ensure-services.sh with HERALD_TEST_TOOLS=1 as root ' +
  '(make test and make test-file do), or apt-get install pgbouncer';

/** The pgbouncer binary (Debian puts it in /usr/sbin, often outside a user's PATH). */
export function pgbouncerBinary(): string | undefined {
  const which = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : '';
  if (found) return found;
  return ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'].find((p) => existsSync(p));
}


function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** As root: the user PgBouncer runs as, and its uid/gid. */
function runUser(): { name: string; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'herald-pg', 'nobody']) {
    const id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (id.status === 0 && gid.status === 0) return { name, uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('running as root, and no postgres, herald-pg or nobody user to run pgbouncer as (it refuses root)');
}

const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;

export async function startPgBouncer(opts: { upstreamPort?: number; poolSize?: number } = {}): Promise<{
  port: number;
  url(database: string, user?: string): string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}> {
  return startPgBouncerWith(opts);
}

/** startPgBouncer, with another pool mode than transaction (tests of what a mode refuses). */
export async function startPgBouncerWith(opts: { upstreamPort?: number; poolSize?: number; poolMode?: 'transaction' | 'statement' | 'session' }): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error(MISSING);
  const upstream = new URL(adminDatabaseUrl());
  const upstreamHost = upstream.hostname || '127.0.0.1';
  const upstreamPort = opts.upstreamPort ?? Number(upstream.port || 5432);
  const superuser = decodeURIComponent(upstream.username || 'postgres');
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-pgbouncer-'));
  const ini = path.join(dir, 'pgbouncer.ini');
  const logFile = path.join(dir, 'pgbouncer.log');
  const userlist = path.join(dir, 'userlist.txt');
  writeFileSync(userlist, `${quote(superuser)} ""\n`);
  writeFileSync(ini, [
    '[databases]',
    `* = host=${upstreamHost} port=${upstreamPort}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    `pool_mode = ${opts.poolMode ?? 'transaction'}`,
    'auth_type = trust',
    `auth_file = ${userlist}`,
    `auth_user = ${superuser}`,
    `default_pool_size = ${opts.poolSize ?? 5}`,
    'min_pool_size = 0',
    'reserve_pool_size = 0',
    'max_client_conn = 1000',
    'max_db_connections = 0',
    // What postgres.js sends at start-up besides user and database, and Herald's store limits
    // (which PgBouncer cannot pass on: the README says to set them on the role).
    'ignore_startup_parameters = extra_float_digits,options,statement_timeout,lock_timeout,idle_in_transaction_session_timeout',
    // A server connection that broke is not handed out again; idle ones are checked before use.
    'server_check_delay = 0',
    'server_login_retry = 1',
    `logfile = ${logFile}`,
    'log_connections = 0',
    'log_disconnections = 0',
    'admin_users = ' + superuser,
    '',
  ].join('\n'));
  const user = runUser();
  if (user) for (const f of [dir, ini, userlist]) chownSync(f, user.uid, user.gid);

  let child: ChildProcess | undefined;
  // It never outlives the test process, whatever happened to the test.
  process.once('exit', () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const launch = async (): Promise<void> => {
    const [cmd, args] = user
      ? ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', binary, ini]]
      : [binary, [ini]];
    const started = spawn(cmd, args, { cwd: dir, stdio: 'ignore' });
    child = started;
    let exited = false;
    started.once('exit', () => { exited = true; });
    const deadline = Date.now() + 15_000;
    // Ours listens: its own log line says so (setpriv execs PgBouncer, so the pid is the child's),
    // not only something answering on the port (an earlier listener there would answer while
    // this one failed to bind, and then go: CI once saw ECONNREFUSED in the middle of a test).
    const listening = `[${started.pid}] LOG listening on 127.0.0.1:${port}`;
    const logged = () => existsSync(logFile) && readFileSync(logFile, 'utf8').includes(listening);
    while (Date.now() < deadline) {
      if (exited) break;
      if (logged() && await accepts(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n') : '(no log)';
    started.kill('SIGKILL');
    throw new Error(`pgbouncer did not start on 127.0.0.1:${port}${exited ? ' (it exited)' : ''}; its log:\n${log}`);
  };
  const kill = (): Promise<void> => new Promise((resolve) => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) { resolve(); return; }
    c.once('exit', () => resolve());
    c.kill('SIGKILL');
  });

  try {
    await launch();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    url(database, asUser) {
      const u = new URL(`postgres://127.0.0.1:${port}/`);
      u.username = encodeURIComponent(asUser ?? superuser);
      u.pathname = `/${encodeURIComponent(database)}`;
      return u.toString();
    },
    async restart() {
      await kill();
      await launch();
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
