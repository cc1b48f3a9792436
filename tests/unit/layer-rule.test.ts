/**
 * The layer rule (eslint-rules/layers.js, wired into eslint.config.js at 'error'): a planted
 * backwards import in a file of a layer fails lint with a message naming the rule it breaks, and
 * the imports the layer table allows pass. Lints text under made-up paths with the repository's
 * own configuration, so this also proves the rule is switched on.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let eslint: ESLint;

beforeAll(() => { eslint = new ESLint({ cwd: root }); });

/** The layer-rule messages for `code` as the file `file` (relative to the repository root). */
async function layerProblems(file: string, code: string): Promise<string[]> {
  expect(await eslint.isPathIgnored(path.join(root, file))).toBe(false); // so a quiet answer means something
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'herald/layers').map((m) => m.message);
}

describe('fires on a backwards import', () => {
  it.each([
    ['domain → infra', 'src/domain/x/planted.ts', `import { createDb } from '../../infra/db/client.js';\nexport const f = createDb;\n`,
      'src/domain (rules and transactions: it declares ports, src/infra implements them) may import only src/core, src/domain; "../../infra/db/client.js" is src/infra/db/client.ts (src/infra)'],
    ['domain → drizzle-orm', 'src/domain/x/planted.ts', `import { eq } from 'drizzle-orm';\nexport const f = eq;\n`,
      'may not import the package "drizzle-orm"'],
    ['domain → a drizzle-orm subpath', 'src/domain/x/planted.ts', `import { pgTable } from 'drizzle-orm/pg-core';\nexport const t = pgTable;\n`,
      'may not import the package "drizzle-orm" ("drizzle-orm/pg-core")'],
    ['domain → handlers', 'src/domain/x/planted.ts', `import { buildHandlers } from '../../handlers/index.js';\nexport const f = buildHandlers;\n`,
      '"../../handlers/index.js" is src/handlers/index.ts (src/handlers)'],
    ['domain → the composition root', 'src/domain/x/planted.ts', `import { createWorker } from '../../main/worker.js';\nexport const f = createWorker;\n`,
      '"../../main/worker.js" is src/main/worker.ts (the composition root, src/main or src/cli.ts)'],
    ['domain → the command', 'src/domain/x/planted.ts', `export type { Outcome } from '../../main/cli-admin.js';\n`,
      '"../../main/cli-admin.js" is src/main/cli-admin.ts (the composition root, src/main or src/cli.ts)'],
    ['infra → a domain value', 'src/infra/x/planted.ts', `import { checkReadiness } from '../../domain/health/readiness.js';\nexport const f = checkReadiness;\n`,
      'src/infra (adapters of the domain\'s ports) may import src/domain for its types only (ports and models); "../../domain/health/readiness.js" is src/domain/health/readiness.ts: use `import type`.'],
    ['infra → domain types named inline (the import stays in the output)', 'src/infra/x/planted.ts',
      `import { type ReportsRepo } from '../../domain/reports/ports.js';\nexport type R = ReportsRepo;\n`,
      'may import src/domain for its types only (ports and models); "../../domain/reports/ports.js" is src/domain/reports/ports.ts: use `import type`.'],
    ['infra → a domain value re-exported', 'src/infra/x/planted.ts', `export { ChannelSendError } from '../../domain/plugins/channel.js';\n`,
      'may import src/domain for its types only'],
    ['infra → the composition root', 'src/infra/x/planted.ts', `import type { Container } from '../../main/container.js';\nexport type C = Container;\n`,
      'src/infra (adapters of the domain\'s ports) may import only src/core, src/infra; "../../main/container.js" is src/main/container.ts (the composition root, src/main or src/cli.ts)'],
    ['infra → handler types', 'src/infra/x/planted.ts', `import type { ApiServices } from '../../handlers/services.js';\nexport type S = ApiServices;\n`,
      '"../../handlers/services.js" is src/handlers/services.ts (src/handlers)'],
    ['infra → jobs', 'src/infra/queue/planted.ts', `import { jobCatalog } from '../../jobs/catalog.js';\nexport const f = jobCatalog;\n`,
      '"../../jobs/catalog.js" is src/jobs/catalog.ts (src/jobs)'],
    ['infra → http', 'src/infra/x/planted.ts', `export { createHttpApp } from '../../http/http-app.js';\n`,
      '"../../http/http-app.js" is src/http/http-app.ts (src/http)'],
    ['infra → http types', 'src/infra/x/planted.ts', `export type { ProblemDocument } from '../../http/problem.js';\n`,
      '"../../http/problem.js" is src/http/problem.ts (src/http)'],
    ['core → domain', 'src/core/planted.ts', `import { checkReadiness } from '../domain/health/readiness.js';\nexport const f = checkReadiness;\n`,
      'src/core (the shared kernel) may import only src/core, src/generated/error-codes.ts; "../domain/health/readiness.js" is src/domain/health/readiness.ts (src/domain)'],
    ['core → other generated code', 'src/core/planted.ts', `import type { paths } from '../generated/openapi.js';\nexport type P = paths;\n`,
      '"../generated/openapi.js" is src/generated/openapi.ts (src/generated)'],
    ['handlers → infra', 'src/handlers/x/planted.ts', `import { createQueue } from '../../infra/queue/queues.js';\nexport const f = createQueue;\n`,
      'src/handlers (one typed handler per operation) may import only src/core, src/domain, src/handlers, src/generated, src/generated/error-codes.ts; "../../infra/queue/queues.js" is src/infra/queue/queues.ts (src/infra)'],
    ['handlers → infra types', 'src/handlers/x/planted.ts', `import type { Db } from '../../infra/db/client.js';\nexport type D = Db;\n`,
      '"../../infra/db/client.js" is src/infra/db/client.ts (src/infra)'],
    ['handlers → http', 'src/handlers/x/planted.ts', `import { problem } from '../../http/problem.js';\nexport const f = problem;\n`,
      '"../../http/problem.js" is src/http/problem.ts (src/http)'],
    ['jobs → infra', 'src/jobs/planted.ts', `import { createMailer } from '../infra/mail/mailer.js';\nexport const f = createMailer;\n`,
      'src/jobs (the job catalog and job handlers) may import only src/core, src/domain, src/jobs; "../infra/mail/mailer.js" is src/infra/mail/mailer.ts (src/infra)'],
    ['jobs → handlers', 'src/jobs/planted.ts', `import { buildHandlers } from '../handlers/index.js';\nexport const f = buildHandlers;\n`,
      '"../handlers/index.js" is src/handlers/index.ts (src/handlers)'],
    ['jobs → a bullmq value', 'src/jobs/planted.ts', `import { Queue } from 'bullmq';\nexport const q = Queue;\n`,
      'may import the package "bullmq" for its types only'],
    ['plugins → infra', 'src/plugins/x/planted.ts', `import { createDb } from '../../infra/db/client.js';\nexport const f = createDb;\n`,
      '"../../infra/db/client.js" is src/infra/db/client.ts (src/infra)'],
    ['a type-only import', 'src/domain/x/planted.ts', `import type { Db } from '../../infra/db/client.js';\nexport type D = Db;\n`,
      '"../../infra/db/client.js" is src/infra/db/client.ts (src/infra)'],
    ['an inline type-only import', 'src/domain/x/planted.ts', `import { type Redis } from 'ioredis';\nexport type R = Redis;\n`,
      'may not import the package "ioredis"'],
    ['a type-only re-export', 'src/domain/x/planted.ts', `export type { Logger } from '../../infra/log/logger.js';\n`,
      '"../../infra/log/logger.js" is src/infra/log/logger.ts (src/infra)'],
    ['an import() type', 'src/domain/x/planted.ts', `export type Db = import('../../infra/db/client.js').Db;\n`,
      '"../../infra/db/client.js" is src/infra/db/client.ts (src/infra)'],
    ['a dynamic import()', 'src/domain/x/planted.ts', `export const load = () => import('../../infra/mail/mailer.js');\n`,
      '"../../infra/mail/mailer.js" is src/infra/mail/mailer.ts (src/infra)'],
  ])('%s', async (_case, file, code, expected) => {
    const problems = await layerProblems(file, code);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^Layer rule broken: /);
    expect(problems[0]).toContain(expected);
  });

  it('reports every forbidden package of the domain', async () => {
    const packages = ['drizzle-orm', 'express', 'postgres', 'ioredis', 'bullmq', 'openapi-backend', 'nodemailer', 'prom-client', 'winston', 'mysql2'];
    const code = packages.map((p, i) => `import type * as p${i} from '${p}';\nexport type T${i} = typeof p${i};\n`).join('');
    const problems = await layerProblems('src/domain/x/planted.ts', code);
    expect(problems.map((m) => /package "([^"]+)"/.exec(m)?.[1])).toEqual(packages);
  });
});

describe('stays quiet on an allowed import', () => {
  it.each([
    ['domain → core, domain and Node', 'src/domain/x/planted.ts',
      `import { createHash } from 'node:crypto';\nimport { newId } from '../../core/ids.js';\nimport type { Principal } from '../identity/principal.js';\nexport const f = [createHash, newId];\nexport type P = Principal;\n`],
    ['core → core and the error codes', 'src/core/planted.ts',
      `import { DomainError } from './errors.js';\nimport type { ProblemCode } from '../generated/error-codes.js';\nexport const e = DomainError;\nexport type C = ProblemCode;\n`],
    ['infra → infra, core and drivers', 'src/infra/x/planted.ts',
      `import { Queue } from 'bullmq';\nimport { drizzle } from 'drizzle-orm/postgres-js';\nimport { newId } from '../../core/ids.js';\nimport type { Logger } from '../log/logger.js';\nexport const f = [Queue, drizzle, newId];\nexport type L = Logger;\n`],
    ['infra → the domain\'s port and model types', 'src/infra/db/stores/planted.ts',
      `import type { ReportsRepo } from '../../../domain/reports/ports.js';\nimport type { ReportRecord } from '../../../domain/reports/model.js';\nexport type { RunRecord } from '../../../domain/runs/model.js';\nexport type R = [ReportsRepo, ReportRecord, import('../../../domain/runs/model.js').RunStatus];\n`],
    ['handlers → domain, core, generated and express', 'src/handlers/x/planted.ts',
      `import type { Request } from 'express';\nimport { DomainError } from '../../core/errors.js';\nimport type { operations } from '../../generated/openapi.js';\nimport { checkReadiness } from '../../domain/health/readiness.js';\nexport const f = [DomainError, checkReadiness];\nexport type T = [Request, operations];\n`],
    ['jobs → jobs, domain and bullmq types', 'src/jobs/planted.ts',
      `import type { Job } from 'bullmq';\nimport { jobCatalog } from './catalog.js';\nimport { createResetMailSender } from '../domain/sign-in/password-reset-mail.js';\nexport const f = [jobCatalog, createResetMailSender];\nexport type J = Job;\n`],
    ['http → handlers, infra and express', 'src/http/planted.ts',
      `import express from 'express';\nimport { buildHandlers } from '../handlers/index.js';\nimport { isRedisUnavailable } from '../infra/queue/queues.js';\nexport const f = [express, buildHandlers, isRedisUnavailable];\n`],
    ['the composition root → anything', 'src/main/planted.ts',
      `import { createWorker } from './worker.js';\nimport { createDb } from '../infra/db/client.js';\nimport { buildHandlers } from '../handlers/index.js';\nexport const f = [createWorker, createDb, buildHandlers];\n`],
    ['the command → anything', 'src/planted.ts',
      `import { startProcess } from './main/runtime.js';\nimport { createDb } from './infra/db/client.js';\nexport const f = [startProcess, createDb];\n`],
    ['a file outside src/', 'tests/unit/planted.ts',
      `import { createDb } from '../../src/infra/db/client.js';\nexport const f = createDb;\n`],
  ])('%s', async (_case, file, code) => {
    expect(await layerProblems(file, code)).toEqual([]);
  });
});
