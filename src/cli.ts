#!/usr/bin/env node
/**
 * The `herald` command: serve | api | scheduler | worker | migrate | healthcheck.
 */
import { loadSettings, healthcheckAddress, SettingsError, type ProcessRole, type Settings } from './infra/config/settings.js';
import type { Logger } from './infra/log/logger.js';
import { createProcessLogger } from './infra/log/process-logger.js';
import { redactText } from './infra/log/redact.js';
import { createDb } from './infra/db/client.js';
import { migrate } from './infra/db/migrate.js';
import { startProcess } from './runtime.js';

const USAGE = `usage: herald <command>

  serve        run the roles of SVC_ROLES (default api,scheduler,worker) in one process
  api          run the HTTP API only
  scheduler    run the scheduler only
  worker       run a worker only
  migrate      apply database migrations (safe to run from several processes at once)
  healthcheck  call /health/ready on SVC_PROBE_LISTEN, else SVC_LISTEN; exit 0 when healthy, 1 otherwise
`;

/** A second signal this soon after the first is the same stop request, echoed. */
const REPEAT_ECHO_MS = 1000;

const ROLE_OF: Record<string, ProcessRole | undefined> = { api: 'api', scheduler: 'scheduler', worker: 'worker' };

function fail(message: string, code = 2): never {
  process.stderr.write(`herald: ${message}\n`);
  process.exit(code);
}

function setUp(overrides: Record<string, string> = {}): { settings: Settings; logger: Logger } {
  let settings: Settings;
  try {
    settings = loadSettings(process.env, { overrides });
  } catch (err) {
    if (err instanceof SettingsError) fail(`bad setting ${err.message}`);
    throw err;
  }
  return { settings, logger: createProcessLogger(settings) };
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
  const { sql } = createDb(settings.databaseUrl, { max: 1, applicationName: 'herald-migrate' });
  try {
    const result = await migrate(sql);
    logger.info('migrations applied', { applied: result.applied, total: result.total });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function runRoles(command: string): Promise<void> {
  const role = ROLE_OF[command];
  const { settings, logger } = setUp(role ? { SVC_ROLES: role } : {});
  const onFatal = (err: unknown) => {
    logger.error('unhandled error', { err });
    process.exit(1);
  };
  process.on('unhandledRejection', onFatal);
  process.on('uncaughtException', onFatal);
  const running = await startProcess(settings, logger);
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
    case 'help': case '--help': case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      fail(`${command === undefined ? 'a command is required' : `unknown command "${command}"`}\n${USAGE}`);
  }
}

main().catch((err: unknown) => {
  // A setting's complaint names the setting and never its value; anything else is redacted.
  const message = err instanceof SettingsError ? err.message : redactText((err as Error | undefined)?.message ?? String(err));
  process.stderr.write(`herald: ${message}\n`);
  process.exit(1);
});
