/**
 * @herald/sdk as a user outside this repository gets it: `npm pack` of sdk/ (its prepack builds
 * sdk/dist), served by a real Herald at /sdk/herald-sdk.tgz, then used from a scratch folder
 * outside the repository, with a user's environment (no NODE_PATH, none of the repository's
 * folders on PATH, npm's own cache, --prefer-offline): the README's GitHub Actions step and GitLab
 * CI job run as written, npx fetching herald-cli from the server (exit 0); herald-cli's --json
 * parsed; and the library installed from the same address, imported by plain Node and compiled
 * by a consumer's tsc.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load as loadYaml } from 'js-yaml';
import { startSdkHerald, type SdkHerald } from '../support/sdk-herald.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const RUN_LINE = /^run ([0-9a-f-]{36}) {2}success {2}3 rows {2}\d+ ms\n$/;

interface Result { code: number | null; stdout: string; stderr: string }
interface Packed { filename: string; version: string; files: Array<{ path: string }> }

let t: SdkHerald;
let scratch: string;
let packed: Packed;
let tarball: string;
let reportId: string;
let packageUrl: string;

function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined>): Promise<Result> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/**
 * A CI job's environment: node and npm on PATH but none of this repository's folders (`npm run`
 * puts its node_modules/.bin there), no NODE_PATH, HOME for npm's cache, and the job's variables.
 */
function jobEnv(vars: Record<string, string> = {}): Record<string, string> {
  const PATH = [path.dirname(process.execPath), ...(process.env.PATH ?? '').split(path.delimiter).filter((p) => p !== '' && !p.startsWith(ROOT))]
    .join(path.delimiter);
  return {
    PATH, HOME: process.env.HOME ?? scratch,
    npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false',
    HERALD_URL: t.h.process.url!, HERALD_API_KEY: t.apiKey, REPORT: reportId,
    ...vars,
  };
}

/** A scratch folder of its own for each job, outside the repository. */
function jobDir(name: string): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  return dir;
}

/** The YAML blocks of the README's "In a pipeline": the GitHub Actions step, then the GitLab CI job. */
function pipelineSnippets(): { github: { env: Record<string, string>; run: string }; gitlab: { script: string[] } } {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## In a pipeline'), readme.indexOf('\n## ', readme.indexOf('## In a pipeline') + 1));
  const blocks = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => loadYaml(m[1]!));
  expect(blocks).toHaveLength(2);
  const [steps, job] = blocks as [Array<{ env: Record<string, string>; run: string }>, Record<string, { script: string[] }>];
  return { github: steps[0]!, gitlab: Object.values(job)[0]! };
}

/** npx keeps what it installed from an address under the cache's _npx: remove this test's entries. */
async function forgetNpxInstalls(): Promise<void> {
  const cache = (await run('npm', ['config', 'get', 'cache'], scratch, jobEnv())).stdout.trim();
  const npx = path.join(cache, '_npx');
  if (!cache || !existsSync(npx)) return;
  for (const entry of readdirSync(npx)) {
    const manifest = path.join(npx, entry, 'package.json');
    if (existsSync(manifest) && readFileSync(manifest, 'utf8').includes(packageUrl)) rmSync(path.join(npx, entry), { recursive: true, force: true });
  }
}

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'herald-sdk-package-'));
  const pack = await run('npm', ['pack', '--json', '--pack-destination', scratch], path.join(ROOT, 'sdk'), process.env);
  if (pack.code !== 0) throw new Error(`npm pack failed\n${pack.stderr}`);
  [packed] = JSON.parse(pack.stdout) as [Packed];
  tarball = path.join(scratch, packed.filename);
  t = await startSdkHerald({ sdkPackage: tarball });
  packageUrl = `${t.h.process.url!}/sdk/herald-sdk.tgz`;
  reportId = await t.report('Pipeline Numbers', 'select g as n from generate_series(1, 3) g');
}, 180_000);
afterAll(async () => {
  if (packageUrl) await forgetNpxInstalls();
  await t?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 30_000);

it('packs dist, the README and the LICENSE, with openapi-fetch as its only dependency', async () => {
  expect(scratch.startsWith(ROOT)).toBe(false);
  const files = packed.files.map((f) => f.path);
  expect(files.filter((f) => !f.startsWith('dist/')).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
  expect(files).toEqual(expect.arrayContaining([
    'dist/index.js', 'dist/index.d.ts', 'dist/index.d.ts.map', 'dist/herald-cli.js', 'dist/generated/schema.d.ts',
  ]));
  const extracted = jobDir('extracted');
  expect((await run('tar', ['-xzf', tarball, '-C', extracted], extracted, jobEnv())).code).toBe(0);
  const manifest = JSON.parse(readFileSync(path.join(extracted, 'package', 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(manifest).toMatchObject({
    name: '@herald/sdk', type: 'module',
    bin: { 'herald-cli': 'dist/herald-cli.js' },
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    dependencies: { 'openapi-fetch': expect.any(String) },
  });
  expect(Object.keys(manifest.dependencies as object)).toEqual(['openapi-fetch']);
  expect(manifest).not.toHaveProperty('private');
  expect(readFileSync(path.join(extracted, 'package', 'dist', 'herald-cli.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
});

it('runs the README\'s GitHub Actions step and GitLab CI job as written: npx from the server, exit 0', async () => {
  const { github, gitlab } = pipelineSnippets();
  // The step sets exactly the variables this job has (the values are the job's, not the README's).
  expect(Object.keys(github.env).sort()).toEqual(['HERALD_API_KEY', 'HERALD_URL', 'REPORT']);
  expect(github.run).toContain('$HERALD_URL/sdk/herald-sdk.tgz');

  const fetched = () => t.h.logs.filter((line) => line.includes('http request') && line.includes('/sdk/herald-sdk.tgz')).length;
  expect(fetched()).toBe(0);
  const step = await run('bash', ['-eo', 'pipefail', '-c', github.run], jobDir('github'), jobEnv());
  expect([step.code, step.stderr]).toEqual([0, expect.any(String)]);
  expect(step.stdout).toMatch(RUN_LINE);
  expect(step.stderr).not.toContain(t.apiKey);
  // herald-cli came from the server: npx asked it for the package.
  expect(fetched()).toBeGreaterThan(0);

  const job = await run('bash', ['-eo', 'pipefail', '-c', gitlab.script.join('\n')], jobDir('gitlab'), jobEnv());
  expect(job.code).toBe(0);
  expect(job.stdout).toMatch(RUN_LINE);
  const runs = [RUN_LINE.exec(step.stdout)![1], RUN_LINE.exec(job.stdout)![1]];
  expect(new Set(runs).size).toBe(2);
  for (const id of runs) expect(await t.client.call('getRun', { path: { runId: id! } })).toMatchObject({ report_id: reportId, status: 'success' });
}, 120_000);

it('prints the finished run as JSON with --json, and its version with --version', async () => {
  const dir = jobDir('json');
  const r = await run('npx', ['--yes', packageUrl, 'reports', 'run', reportId, '--wait', '--timeout', '60', '--no-deliver', '--json'], dir, jobEnv());
  expect(r.code).toBe(0);
  const finished = JSON.parse(r.stdout) as { id: string; status: string; report_id: string; row_count: number };
  expect(finished).toMatchObject({ report_id: reportId, status: 'success', row_count: 3 });

  const version = await run('npx', ['--yes', packageUrl, '--version'], dir, jobEnv());
  expect([version.code, version.stdout]).toEqual([0, `herald-cli ${packed.version}\n`]);
}, 120_000);

it('installs from the server\'s address as a library that plain Node imports and a consumer\'s tsc compiles', async () => {
  const app = jobDir('app');
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const install = await run('npm', ['install', packageUrl], app, jobEnv());
  expect([install.code, install.stderr]).toEqual([0, expect.any(String)]);
  // What it brings: the SDK and openapi-fetch's two packages; no tsx, no TypeScript.
  expect(readdirSync(path.join(app, 'node_modules')).filter((n) => !n.startsWith('.')).sort())
    .toEqual(['@herald', 'openapi-fetch', 'openapi-typescript-helpers']);

  writeFileSync(path.join(app, 'list.js'), `import { createClient, HeraldError } from '@herald/sdk';
const herald = createClient({ baseUrl: process.env.HERALD_URL, apiKey: process.env.HERALD_API_KEY });
const titles = [];
for await (const report of herald.paginate('listReports')) titles.push(report.title);
let code;
try { await herald.call('getReport', { path: { reportId: '00000000-0000-4000-8000-000000000000' } }); }
catch (error) { code = error instanceof HeraldError ? error.code : String(error); }
console.log(JSON.stringify({ titles, code }));
`);
  const listed = await run(process.execPath, ['list.js'], app, jobEnv());
  expect(listed.stderr).toBe('');
  expect(JSON.parse(listed.stdout)).toEqual({ titles: expect.arrayContaining(['Pipeline Numbers']), code: expect.stringMatching(/not_found$/) });

  // A consumer's compile against the package's declarations (this repository's tsc is only the compiler).
  writeFileSync(path.join(app, 'consumer.ts'), `import { createClient, type Run } from '@herald/sdk';
const herald = createClient({ baseUrl: 'https://herald.example.com', apiKey: 'hk_example' });
export const run: Promise<Run> = herald.call('getRun', { path: { runId: 'x' } });
// @ts-expect-error an operation the contract does not have
herald.call('getNothing');
// @ts-expect-error a report needs a title
herald.call('createReport', { body: { query_id: 'x' } });
`);
  writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2023', lib: ['ES2023', 'DOM'], types: [], noEmit: true },
    files: ['consumer.ts'],
  }));
  const tsc = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], app, jobEnv());
  expect([tsc.code, tsc.stdout]).toEqual([0, '']);
}, 120_000);
