/** The process itself: which roles it runs, where it keeps local state, how long it drains. */
import path from 'node:path';
import { commaList, integer, setting, valueIn, type ParseContext } from './schema.js';

export type ProcessRole = 'api' | 'scheduler' | 'worker';

const ROLES: ProcessRole[] = ['api', 'scheduler', 'worker'];

function parseRoles(ctx: ParseContext, value: string | undefined): ProcessRole[] {
  const list = commaList(value ?? 'api,scheduler,worker');
  if (list.length === 0 || list.some((r) => !ROLES.includes(r as ProcessRole))) ctx.fail('must be a comma list of api, scheduler, worker');
  return [...new Set(list as ProcessRole[])];
}

export const processSettings = {
  roles: setting({
    env: 'SVC_ROLES',
    description: 'comma list of api, scheduler, worker for `herald serve`',
    default: 'api,scheduler,worker',
    parse(v, ctx) {
      // A one-role command overrides SVC_ROLES, but a malformed value in the environment is still a mistake.
      parseRoles(ctx, valueIn(ctx.given, 'SVC_ROLES'));
      return parseRoles(ctx, v);
    },
  }),
  dataDir: setting({
    env: 'SVC_DATA_DIR',
    description: 'result files and local state (the secret key file when SVC_SECRET_KEY is unset)',
    default: './.data',
    parse: (v, ctx) => path.resolve(ctx.cwd, v ?? '.data'),
  }),
  shutdownTimeoutSeconds: integer('SVC_SHUTDOWN_TIMEOUT_SECONDS', { fallback: 30, min: 1, max: 3600 },
    'how long SIGTERM waits for in-flight requests and jobs'),
  /** SVC_HEAP_SETTLE: src/main/start-heap.ts reads it itself, before the settings load; here it is checked and listed. */
  heapSettle: setting({
    env: 'SVC_HEAP_SETTLE',
    description: 'keep V8\'s young generation small while the process starts and collect twice once it runs (a smaller idle process); false: V8\'s defaults',
    default: 'true',
    parse(v, ctx) {
      if (v !== undefined && v !== 'true' && v !== 'false') ctx.fail('must be true or false');
      return v !== 'false';
    },
  }),
};
