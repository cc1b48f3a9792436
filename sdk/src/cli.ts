/**
 * herald-cli: Herald's API from a shell or a CI job, on the SDK. Reads HERALD_URL (or --url) and
 * HERALD_API_KEY; never prints the key. Exit codes: 0 done, 1 an error or a run that failed,
 * 2 a partial run, 64 a usage error. The executable is herald-cli.ts (the package's bin).
 */
import { createClient, SDK_VERSION } from './client.js';
import { HeraldError } from './errors.js';
import { parseArgs, UsageError } from './cli/args.js';
import { commands, type Command } from './cli/commands.js';

const COMMON = ['json', 'help'];

function usage(): string {
  return [
    'usage: herald-cli <command> [options]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.usage.split('\n')[0]}`),
    '',
    'environment: HERALD_URL (or --url URL), HERALD_API_KEY (an API key, hk_...)',
    'every command takes --json (the API\'s JSON) and --help',
    '',
  ].join('\n');
}

const commandUsage = (c: Command) => `usage: herald-cli ${c.usage}\n  --url URL  Herald's address (default: $HERALD_URL)\n`;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Record<string, string | undefined>;
}

export async function main(argv: string[], io: Io): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io[argv.length === 0 ? 'err' : 'out'](usage());
    return argv.length === 0 ? 64 : 0;
  }
  if (argv[0] === '--version') { io.out(`herald-cli ${SDK_VERSION}\n`); return 0; }
  const command = commands.find((c) => c.name === argv.slice(0, 2).join(' '));
  if (!command) {
    io.err(`error: unknown command "${argv.slice(0, 2).join(' ')}"\n\n${usage()}`);
    return 64;
  }
  try {
    const args = parseArgs(argv.slice(2), new Set([...(command.valued ?? []), 'url']), new Set([...(command.flags ?? []), ...COMMON]));
    if (args.flags.has('help')) { io.out(commandUsage(command)); return 0; }
    if (args.positionals.length !== command.positionals.length) {
      throw new UsageError(command.positionals.length === 0
        ? `unexpected argument ${args.positionals[0]}`
        : `expected ${command.positionals.join(' ')}`);
    }
    // An empty argument is a CI variable that was not set: say so rather than ask the API for "".
    const empty = command.positionals.find((_name, i) => args.positionals[i]!.trim() === '');
    if (empty) throw new UsageError(`${empty} is empty (is its CI variable set?)`);
    // The server's address; the API's base path, which the curl examples carry in $B, is taken off.
    const baseUrl = (args.options.get('url') ?? io.env.HERALD_URL)?.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    if (!baseUrl) throw new UsageError('set HERALD_URL or give --url');
    try { new URL(baseUrl); } catch { throw new UsageError(`not a URL: ${baseUrl}`); }
    const apiKey = io.env.HERALD_API_KEY;
    const client = createClient({ baseUrl, ...(apiKey ? { apiKey } : {}), userAgent: `herald-cli/${SDK_VERSION}` });
    return await command.run({ client, args, json: args.flags.has('json'), out: io.out, err: io.err });
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}\n${commandUsage(command)}`);
      return 64;
    }
    if (error instanceof HeraldError) {
      io.err(`error: ${error.code}: ${error.detail ?? error.title}${error.requestId ? ` (request ${error.requestId})` : ''}\n`);
      return 1;
    }
    const message = error instanceof Error ? error.message : String(error);
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    io.err(`error: ${message}${cause}\n`);
    return 1;
  }
}
