/** Configuration files on disk: a file, or a directory's *.yaml / *.yml files (`herald config`, SVC_GITOPS_DIR). */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ConfigSource } from '../domain/config/config-service.js';
import type { GitopsDirectory } from '../domain/config/gitops.js';

/** The files of a path: the file itself, or a directory's *.yaml / *.yml files, sorted. */
export async function readConfigSources(target: string): Promise<ConfigSource[]> {
  const info = await stat(target);
  if (!info.isDirectory()) return [{ path: target, text: await readFile(target, 'utf8') }];
  const names = (await readdir(target)).filter((n) => /\.ya?ml$/i.test(n)).sort();
  return Promise.all(names.map(async (n) => ({ path: path.join(target, n), text: await readFile(path.join(target, n), 'utf8') })));
}

/** The configuration directory of SVC_GITOPS_DIR, when set. */
export const gitopsDirectory = (dir: string | undefined): GitopsDirectory | undefined =>
  dir === undefined ? undefined : { path: dir, read: () => readConfigSources(dir) };
