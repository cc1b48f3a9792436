/**
 * A clean clone installs with `npm ci` from package-lock.json as committed (the Makefile's deps
 * and the Dockerfile do), and leaves it unchanged. That needs the lock to agree with package.json
 * and to hold every platform's optional packages (@swc/core-*, @esbuild/*, msgpackr-extract,
 * unrs-resolver …), not only those of the machine that wrote it: a lock missing them made
 * `npm ci` refuse ("Missing: @swc/core-darwin-arm64@1.16.22 from lock file").
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const root = new URL('../../', import.meta.url);
const read = (name: string) => JSON.parse(readFileSync(new URL(name, root), 'utf8')) as Record<string, unknown>;

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const lock = read('package-lock.json') as { lockfileVersion: number; packages: Record<string, LockEntry> };
const manifest = read('package.json') as LockEntry;

/** Where Node (and npm) finds `name` from the package at `at`: its own node_modules, then each parent's. */
function resolve(at: string, name: string): string | undefined {
  let dir = at;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const up = dir.lastIndexOf('/node_modules/');
    dir = up < 0 ? '' : dir.slice(0, up);
  }
}

it('names in the lock the same direct dependencies as package.json', () => {
  expect(lock.lockfileVersion).toBe(3);
  const top = lock.packages['']!;
  for (const kind of ['dependencies', 'devDependencies', 'optionalDependencies'] as const) {
    expect([kind, top[kind] ?? {}]).toEqual([kind, manifest[kind] ?? {}]);
  }
});

it('holds every optional dependency of every locked package, for every platform', () => {
  const missing: string[] = [];
  for (const [at, entry] of Object.entries(lock.packages)) {
    if (at === '') continue;
    for (const name of [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {})]) {
      if (!resolve(at, name)) missing.push(`${name} (for ${at})`);
    }
  }
  // Fix: `npm install --package-lock-only`, which adds them without touching node_modules.
  expect(missing).toEqual([]);
});

it('is accepted by `npm ci` as it is (a dry run, offline, on a copy of package.json and the lock)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-lock-'));
  try {
    for (const name of ['package.json', 'package-lock.json']) copyFileSync(new URL(name, root), path.join(dir, name));
    // An empty cache of its own and --offline: the check needs no registry and no earlier install.
    const { stderr } = await execFileAsync('npm', ['ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund',
      '--cache', path.join(dir, '.npm-cache')], { cwd: dir, timeout: 60_000 }).catch((err: { stderr?: string; message: string }) => {
      throw new Error(`npm ci refused the lock file:\n${(err.stderr ?? err.message).split('\n').filter((l) => /error/.test(l)).slice(0, 12).join('\n')}`);
    });
    expect(stderr).not.toMatch(/npm error/);
    // npm ci never writes the lock: what the clone checked out stays as committed.
    expect(readFileSync(path.join(dir, 'package-lock.json'), 'utf8')).toBe(readFileSync(new URL('package-lock.json', root), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
