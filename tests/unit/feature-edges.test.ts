/**
 * The feature rule (eslint-rules/features.js, wired into eslint.config.js at 'error'): an import
 * between two features of src/domain that FEATURE_EDGES does not list fails lint with a message
 * naming the rule, the table has no circle, and a circle added to it fails. Lints text under
 * made-up paths with the repository's own configuration, so this also proves the rule is on.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { AGGREGATES, FEATURE_EDGES, findCircle } from '../../eslint-rules/features.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let eslint: ESLint;

beforeAll(() => { eslint = new ESLint({ cwd: root }); });

/** The feature-rule messages for `code` as the file `file` (relative to the repository root). */
async function featureProblems(file: string, code: string, lint = eslint): Promise<string[]> {
  expect(await lint.isPathIgnored(path.join(root, file))).toBe(false); // so a quiet answer means something
  const [result] = await lint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'herald/features').map((m) => m.message);
}

describe('the table', () => {
  const edges = FEATURE_EDGES;
  const aggregates = AGGREGATES;

  it('has no circle', () => {
    expect(findCircle(edges)).toBeNull();
  });

  it('has a row for every folder of src/domain, and names only rows', () => {
    const folders = readdirSync(path.join(root, 'src/domain'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect([...Object.keys(edges), ...Object.keys(aggregates)].sort()).toEqual(folders.sort());
    for (const targets of [...Object.values(edges), ...Object.values(aggregates)]) {
      for (const t of targets) expect(Object.keys(edges)).toContain(t);
    }
  });

  it('keeps runs free of deliveries and of reports, and events free of every feature', () => {
    expect(edges.runs).not.toContain('deliveries');
    expect(edges.runs).not.toContain('reports');
    expect(edges.events).toEqual([]);
  });

  /** The features around `circle`, after checking it is a closed path of `table`'s edges. */
  const around = (table: Record<string, string[]>, circle: string[] | null): string[] => {
    expect(circle).not.toBeNull();
    expect(circle![0]).toBe(circle!.at(-1));
    for (let i = 1; i < circle!.length; i += 1) expect(table[circle![i - 1]!]).toContain(circle![i]);
    return [...new Set(circle)].sort();
  };

  it('finds a circle added to it', () => {
    const backToDeliveries = { ...edges, runs: [...edges.runs!, 'deliveries'] };
    expect(around(backToDeliveries, findCircle(backToDeliveries))).toEqual(expect.arrayContaining(['deliveries', 'runs']));
    const throughRuns = { ...edges, schedules: ['links'] }; // schedules → links → … → runs → schedules
    expect(around(throughRuns, findCircle(throughRuns))).toEqual(expect.arrayContaining(['links', 'runs', 'schedules']));
    expect(findCircle({ a: ['b'], b: ['c'], c: ['a'] })).toEqual(['a', 'b', 'c', 'a']);
  });

  it('fails lint when a circle is added to it', async () => {
    const table = { ...edges, schedules: ['reports'] };
    const withCircle = new ESLint({
      cwd: root,
      overrideConfig: { files: ['src/**/*.ts'], rules: { 'herald/features': ['error', { edges: table }] } },
    });
    const problems = await featureProblems('src/domain/schedules/planted.ts', 'export const x = 1;\n', withCircle);
    expect(around(table, findCircle(table))).toEqual(expect.arrayContaining(['reports', 'schedules']));
    expect(problems).toEqual([`Feature rule broken: FEATURE_EDGES has a circle: ${findCircle(table)!.join(' → ')}.`]);
  });
});

describe('fires on an import the table does not list', () => {
  it.each([
    ['runs → deliveries (the old circle)', 'src/domain/runs/planted.ts',
      `import { createDeliverySender } from '../deliveries/sender.js';\nexport const f = createDeliverySender;\n`,
      'src/domain/runs may import only src/domain/artifacts, src/domain/channels, src/domain/connections, src/domain/events, src/domain/plugins, src/domain/queries, src/domain/schedules; "../deliveries/sender.js" is src/domain/deliveries'],
    ['runs → reports (the other old circle)', 'src/domain/runs/planted.ts',
      `import { evaluateCondition } from '../reports/condition.js';\nexport const f = evaluateCondition;\n`,
      '"../reports/condition.js" is src/domain/reports'],
    ['events → runs', 'src/domain/events/planted.ts',
      `import type { RunRecord } from '../runs/model.js';\nexport type R = RunRecord;\n`,
      'src/domain/events may import only no other feature; "../runs/model.js" is src/domain/runs'],
    ['a leaf → anything', 'src/domain/schedules/planted.ts',
      `export { runChanged } from '../runs/events.js';\n`,
      'src/domain/schedules may import only no other feature'],
    ['an import() type', 'src/domain/identity/planted.ts',
      `export type R = import('../reports/model.js').ReportRecord;\n`,
      '"../reports/model.js" is src/domain/reports'],
    ['a dynamic import()', 'src/domain/channels/planted.ts',
      `export const load = () => import('../deliveries/sender.js');\n`,
      '"../deliveries/sender.js" is src/domain/deliveries'],
    ['a folder with no row', 'src/domain/brand-new/planted.ts',
      `import type { RunRecord } from '../runs/model.js';\nexport type R = RunRecord;\n`,
      'src/domain/brand-new has no row in FEATURE_EDGES'],
    ['a value from the unit of work', 'src/domain/reports/planted.ts',
      `import * as uow from '../unit-of-work/ports.js';\nexport const u = uow;\n`,
      'src/domain/unit-of-work is an aggregation point of types: "../unit-of-work/ports.js" must be `import type`'],
    ['the unit of work → a feature it does not gather', 'src/domain/unit-of-work/planted.ts',
      `import type { DeliverySender } from '../deliveries/sender.js';\nexport type D = DeliverySender;\n`,
      '"../deliveries/sender.js" is src/domain/deliveries'],
  ])('%s', async (_case, file, code, expected) => {
    const problems = await featureProblems(file, code);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^Feature rule broken: /);
    expect(problems[0]).toContain(expected);
  });
});

describe('stays quiet on an allowed import', () => {
  it.each([
    ['runs → queries, events, core and its own files', 'src/domain/runs/planted.ts',
      `import { bindValues } from '../queries/parameters.js';\nimport { reportUpdated } from '../events/model.js';\nimport { runChanged } from './events.js';\nimport { newId } from '../../core/ids.js';\nexport const f = [bindValues, reportUpdated, runChanged, newId];\n`],
    ['reports → runs (the JudgeCondition port it implements)', 'src/domain/reports/planted.ts',
      `import type { JudgeCondition } from '../runs/engine-ports.js';\nimport type { RunStatus } from '../runs/model.js';\nexport type J = [JudgeCondition, RunStatus];\n`],
    ['deliveries → runs (the DeliverRun port it implements)', 'src/domain/deliveries/planted.ts',
      `import type { DeliverRun } from '../runs/engine-ports.js';\nimport { RunCancelled } from '../runs/model.js';\nexport const f = RunCancelled;\nexport type D = DeliverRun;\n`],
    ['a feature → the unit of work, type-only', 'src/domain/channels/planted.ts',
      `import type { UnitOfWork } from '../unit-of-work/ports.js';\nexport type U = UnitOfWork;\n`],
    ['the unit of work → a feature it gathers, type-only', 'src/domain/unit-of-work/planted.ts',
      `import type { ReportsRepo } from '../reports/ports.js';\nexport type R = ReportsRepo;\n`],
    ['a file outside src/domain', 'src/handlers/planted.ts',
      `import { createDeliverySender } from '../domain/deliveries/sender.js';\nimport { createRunEngine } from '../domain/runs/run-engine.js';\nexport const f = [createDeliverySender, createRunEngine];\n`],
  ])('%s', async (_case, file, code) => {
    expect(await featureProblems(file, code)).toEqual([]);
  });
});
