/** The configuration directory that manages resources. */
import { statSync } from 'node:fs';
import path from 'node:path';
import { setting } from './schema.js';

export const gitopsSettings = {
  gitopsDir: setting({
    env: 'SVC_GITOPS_DIR',
    description: 'configuration directory that manages resources',
    default: 'unset: off',
    parse(v, ctx) {
      if (v === undefined) return undefined;
      const dir = path.resolve(ctx.cwd, v);
      const isDir = (() => {
        try {
          return statSync(dir).isDirectory();
        } catch {
          return false;
        }
      })();
      if (!isDir) ctx.fail(`${dir} is not a directory`);
      return dir;
    },
  }),
};
