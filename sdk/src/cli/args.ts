/** herald-cli's argument parsing: positionals, `--flag`, `--opt value`, `--opt=value`, `-o value`. */

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface Parsed {
  positionals: string[];
  flags: Set<string>;
  options: Map<string, string>;
}

/** `valued` names the options that take a value (without dashes); `-o` is `output`. */
export function parseArgs(argv: string[], valued: ReadonlySet<string>, known: ReadonlySet<string>): Parsed {
  const positionals: string[] = [];
  const flags = new Set<string>();
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') { positionals.push(...argv.slice(i + 1)); break; }
    if (arg === '-' || !arg.startsWith('-')) { positionals.push(arg); continue; }
    let name: string;
    let value: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      if (eq !== -1) value = arg.slice(eq + 1);
    } else if (arg === '-o') {
      name = 'output';
    } else if (arg === '-h') {
      name = 'help';
    } else {
      throw new UsageError(`unknown option ${arg}`);
    }
    if (!known.has(name) && !valued.has(name)) throw new UsageError(`unknown option --${name}`);
    if (valued.has(name)) {
      if (value === undefined) {
        value = argv[i + 1];
        if (value === undefined) throw new UsageError(`--${name} needs a value`);
        i += 1;
      }
      options.set(name, value);
    } else {
      if (value !== undefined) throw new UsageError(`--${name} takes no value`);
      flags.add(name);
    }
  }
  return { positionals, flags, options };
}

/** A whole number of at least `min` (and at most `max`), or a usage error naming the option. */
export function integerOption(raw: string, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number`);
  const n = Number(raw);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}`);
  return n;
}
