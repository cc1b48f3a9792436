/**
 * The SDK runs where there is fetch and Web Crypto (a browser, the web UI): none of its modules
 * imports a Node built-in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = new URL('../../sdk/src/', import.meta.url).pathname;
const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? (e.name === 'cli' ? [] : files(path.join(dir, e.name))) : e.name.endsWith('.ts') && e.name !== 'cli.ts' ? [path.join(dir, e.name)] : []);

it('imports no Node built-in outside the command line', () => {
  const offenders = files(root).filter((f) => /from ['"]node:|require\(['"]node:/.test(readFileSync(f, 'utf8'))).map((f) => path.relative(root, f));
  expect(offenders).toEqual([]);
  expect(files(root).length).toBeGreaterThan(5);
});
