/**
 * The `herald` command: serve | api | scheduler | worker | migrate | healthcheck | check-config |
 * admin reset-password | rotate-secret-key | help. Its entry is src/cli.ts.
 */
import { settleHeap } from './main/start-heap.js';
import {
  describeSettings, healthcheckAddress, loadSettings, SettingsError, type LoadOptions, type ProcessRole, type Settings,
} from './infra/config/settings.js';
import type { Logger } from './infra/log/logger.js';
import { flushLogs } from './infra/log/buffered-output.js';
import { createProcessLogger } from './infra/log/process-logger.js';
import { redactText } from './infra/log/redact.js';
import { isFleetMember, startApiFleet } from './main/api-fleet.js';
import type { Outcome } from './main/cli-admin.js';
// What each command needs beyond its settings is loaded by that command (`await import`): the
// service's modules (runtime: the store, the queues, the API and its contract) are most of a
// start, which check-config, help and healthcheck never use (`make run` and every container
// probe call those).

const USAGE = `usage: herald <command>

  serve        run the roles of SVC_ROLES (default api,scheduler,worker) in one process
  api          run the HTTP API only
  scheduler    run the scheduler only
  worker       run a worker only
  migrate      apply database migrations (safe to run from several processes at once)
  healthcheck  call /health/ready on SVC_PROBE_LISTEN, else SVC_LISTEN; exit 0 when healthy, 1 otherwise
  check-config
               check every setting and exit (0 good, 2 bad) without touching the store, Redis or files
  admin reset-password EMAIL
               give a user a temporary password (printed) without mail; ends their sessions
  rotate-secret-key
               re-encrypt every secret field with SVC_SECRET_KEY (after a key change; see the README)
  config export [FILE] | config plan|apply [--prune] [--detailed-exitcode] FILE|DIR
               configuration as code without the API (the format of POST /export and /import);
               --detailed-exitcode: 0 no changes, 2 changes, 1 errors
  help [settings]
               this text, or every SVC_* setting with its meaning and default
`;

/** Commands that use the store but not Redis take a stand-in for SVC_REDIS_URL when it is unset. */
const NO_REDIS = { SVC_REDIS_URL: 'redis://unused.invalid' };

/** A second signal this soon after the first is the same stop request, echoed. */
const REPEAT_ECHO_MS = 1000;

const ROLE_OF: Record<string, ProcessRole | undefined> = { api: 'api', scheduler: 'scheduler', worker: 'worker' };

function fail(message: string, code = 2): never {
  flushLogs();
  process.stderr.write(`herald: ${message}\n`);
  process.exit(code);
}

function readSettings(options: LoadOptions = {}): Settings {
  try {
    return loadSettings(process.env, options);
  } catch (err) {
    if (err instanceof SettingsError) fail(`bad setting ${err.message}`);
    throw err;
  }
}

function setUp(overrides: Record<string, string> = {}): { settings: Settings; logger: Logger } {
  const settings = readSettings({ overrides });
  return { settings, logger: createProcessLogger(settings) };
}

/** Every setting checked as `herald serve` would, with nothing made: no key file, no connection. */
function checkConfig(): void {
  readSettings({ files: 'none' });
  process.stdout.write('herald: settings are good\n');
}

function finish(outcome: Outcome): never {
  flushLogs();
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  process.exit(outcome.code);
}

async function admin(args: string[]): Promise<void> {
  if (args[0] !== 'reset-password' || args.length > 2) fail(`unknown admin command${args[0] ? ` "${args.join(' ')}"` : ''}\n${USAGE}`);
  // No key is needed to reset a password: none is made either.
  const settings = readSettings({ unused: NO_REDIS, files: 'none' });
  const { resetPasswordCommand } = await import('./main/cli-admin.js');
  finish(await resetPasswordCommand(settings, args[1]));
}

async function rotateSecretKey(): Promise<void> {
  // The service's own key, never one made here: values re-sealed under a key no process has would be lost.
  const settings = readSettings({ unused: NO_REDIS, files: 'existing' });
  const { rotateSecretKeyCommand } = await import('./main/cli-admin.js');
  finish(await rotateSecretKeyCommand(settings, undefined, (line) => process.stderr.write(`herald: ${line}\n`)));
}

function help(topic: string | undefined): void {
  if (topic !== 'settings') {
    process.stdout.write(USAGE);
    return;
  }
  const rows = describeSettings();
  const width = Math.max(...rows.map((r) => r.env.length));
  process.stdout.write(`${rows.map((r) => `${r.env.padEnd(width)}  ${r.description}\n${' '.repeat(width)}  default: ${r.default}`).join('\n')}\n`);
}

async function healthcheck(): Promise<never> {
  let target: string;
  try {
    const { host, port } = healthcheckAddress(process.env);
    const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
    target = `http://${local.includes(':') ? `[${local}]` : local}:${port}/health/ready`;
  } catch (err) {
    if (err instanceof SettingsError) fail(`bad setting ${err.message}`);
    throw err;
  }
  try {
    const res = await fetch(target, { signal: AbortSignal.timeout(5000) });
    process.stdout.write(`${res.status} ${await res.text()}\n`);
    process.exit(res.status === 200 ? 0 : 1);
  } catch (err) {
    process.stderr.write(`herald: ${target} did not answer (${(err as Error).message})\n`);
    process.exit(1);
  }
}

async function runMigrate(): Promise<void> {
  const { settings, logger } = setUp();
  const [{ createDb }, { migrate }] = await Promise.all([import('./infra/db/client.js'), import('./infra/db/migrate.js')]);
  // Migrations hold a transaction and an advisory lock for as long as they take: on the direct connection.
  const { sql } = createDb(settings.databaseDirectUrl, { max: 1, applicationName: 'herald-migrate', prepare: settings.databasePrepare });
  try {
    const result = await migrate(sql);
    logger.info('migrations applied', { applied: result.applied, total: result.total });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * SVC_API_PROCESSES API processes on SVC_LISTEN (forked, each with the API as its only role), and
 * this process's other roles here.
 */
async function startFleet(settings: Settings, logger: Logger): Promise<{ stop(): Promise<void> }> {
  const others = settings.roles.filter((r) => r !== 'api');
  const { startProcess } = await import('./main/runtime.js');
  const fleet = startApiFleet(settings.apiProcesses, logger);
  const rest = others.length > 0 ? await startProcess(setUp({ SVC_ROLES: others.join(',') }).settings, logger) : undefined;
  return {
    async stop() {
      await Promise.all([fleet.stop(settings.shutdownTimeoutSeconds * 1000), rest?.stop()]);
    },
  };
}

async function runRoles(command: string): Promise<void> {
  const role = ROLE_OF[command];
  const { settings, logger } = setUp(role ? { SVC_ROLES: role } : {});
  // A promise nobody awaited failed: a bug, logged loudly, but the process goes on serving (its
  // api, scheduler and worker roles hold other users' work; the run it belonged to fails on its own).
  process.on('unhandledRejection', (err: unknown) => {
    logger.error('unhandled promise rejection: a bug in Herald; the process goes on', { err });
  });
  // A synchronous throw nobody caught may have left any state half-changed: stop (the
  // supervisor, or another worker, takes over).
  process.on('uncaughtException', (err: unknown) => {
    logger.error('uncaught exception: the process stops', { err });
    process.exit(1);
  });
  const running = settings.apiProcesses > 1 && settings.roles.includes('api') && !isFleetMember()
    ? await startFleet(settings, logger)
    : await (await import('./main/runtime.js')).startProcess(settings, logger);
  settleHeap((reason) => logger.warn('the heap was not settled after start-up (it idles larger)', { reason }));
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== undefined) {
      // `kill -TERM -<group>` reaches us twice: directly, and forwarded by make or a shell.
      // An echo within a second is ignored; a later signal is a person insisting.
      if (Date.now() - firstSignalAt < REPEAT_ECHO_MS) { logger.info('already stopping', { signal }); return; }
      logger.warn('second signal: exiting now', { signal });
      process.exit(1);
    }
    firstSignalAt = Date.now();
    logger.info('stopping', { signal });
    running.stop().then(() => process.exit(0), (err: unknown) => {
      logger.error('stop failed', { err });
      process.exit(1);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function main(): Promise<void> {
  const command = process.argv[2];
  switch (command) {
    case 'serve': case 'api': case 'scheduler': case 'worker':
      await runRoles(command);
      return;
    case 'migrate':
      await runMigrate();
      return;
    case 'healthcheck':
      await healthcheck();
      return;
    case 'check-config':
      checkConfig();
      return;
    case 'admin':
      await admin(process.argv.slice(3));
      return;
    case 'rotate-secret-key':
      await rotateSecretKey();
      return;
    case 'config': {
      // The same services as POST /export and /import, on the store, Redis and secret key of the
      // running service (never a key made here: what it sealed could not be opened by the service).
      // Logs go to stderr, so stdout is the export or the plan; any failure exits 1, so that
      // --detailed-exitcode's 2 means changes only.
      let settings: Settings;
      try {
        settings = loadSettings(process.env, { overrides: { SVC_ROLES: 'api' }, files: 'existing' });
      } catch (err) {
        if (err instanceof SettingsError) fail(`bad setting ${err.message} (run it with the service's settings: SVC_DATABASE_URL, SVC_REDIS_URL, and SVC_SECRET_KEY or the SVC_DATA_DIR holding its key file)`, 1);
        throw err;
      }
      const { configCommand } = await import('./main/cli-config.js');
      finish(await configCommand(settings, createProcessLogger(settings, process.stderr), process.argv.slice(3)));
      return;
    }
    case 'help': case '--help': case '-h':
      help(process.argv[3]);
      return;
    default:
      fail(`${command === undefined ? 'a command is required' : `unknown command "${command}"`}\n${USAGE}`);
  }
}

main().catch((err: unknown) => {
  // A setting's complaint names the setting and never its value; anything else is redacted.
  const message = err instanceof SettingsError ? err.message : redactText((err as Error | undefined)?.message ?? String(err));
  flushLogs();
  process.stderr.write(`herald: ${message}\n`);
  process.exit(1);
});
