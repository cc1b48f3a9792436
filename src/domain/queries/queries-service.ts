/**
 * Queries: named SQL bound to a connection, with declared parameters. Every change of sql,
 * connection or parameters is a new query version; restoring copies an old version into a new
 * one. A query a report uses cannot be deleted.
 */
import type { UnitOfWork } from '../unit-of-work/ports.js';
import type { Clock } from '../../core/clock.js';
import { inUse, notFound, validationFailed } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { insertUnderFreeKey } from '../../core/slug.js';
import type { PageRequest } from '../../core/cursor.js';
import type { Actor } from '../audit/security-events.js';
import { declarationProblems, type QueryParameter } from './parameters.js';
import { parseSqlTemplate, placeholderNames } from './sql-template.js';
import type { QueryRecord } from './model.js';
import type { QueriesRepo, QueriesStore, QueryUsage } from './ports.js';

/** The SQL and parameters fit together: every placeholder declared, declarations sound. */
function checkDefinition(sql: string, parameters: QueryParameter[]): void {
  const problems = declarationProblems(parameters);
  const declared = new Set(parameters.map((p) => p.name));
  const undeclared = placeholderNames(parseSqlTemplate(sql)).filter((n) => !declared.has(n));
  if (undeclared.length > 0) {
    problems.push({ field: 'sql', code: 'validation.invalid', message: `uses ${undeclared.map((n) => `{{ ${n} }}`).join(', ')} without a declaration in parameters` });
  }
  if (problems.length > 0) throw validationFailed(problems);
}

const sameParameters = (a: QueryParameter[], b: QueryParameter[]) => JSON.stringify(a) === JSON.stringify(b);

export function createQueriesService(deps: {
  /** Reads; changes (a query with its version) go through the unit of work. */
  store: QueriesStore; uow: UnitOfWork; usage: QueryUsage; clock: Clock;
}) {
  const { store, clock } = deps;
  const get = async (repo: Pick<QueriesRepo, 'find'>, id: string): Promise<QueryRecord> => {
    const row = await repo.find(id);
    if (!row) throw notFound('query');
    return row;
  };

  return {
    list: (q: PageRequest) => store.list(q),
    get: (id: string) => get(store, id),

    async create(input: { name: string; key?: string | undefined; description?: string | null | undefined; connectionId: string; sql: string; parameters?: QueryParameter[] | undefined }, actor: Actor) {
      const parameters = input.parameters ?? [];
      checkDefinition(input.sql, parameters);
      return deps.uow.run(async ({ queries: tx }) => {
        const now = clock.now();
        const id = newId();
        const row = await insertUnderFreeKey('query', input.key, input.name, {
          keysLike: (base) => tx.keysLike(base),
          insert: (key) => tx.insert({
            id, key, name: input.name.trim(), description: input.description ?? null, connectionId: input.connectionId,
            sql: input.sql, parameters, currentVersion: 1, createdBy: actor.userId ?? null, createdAt: now, updatedAt: now,
          }),
        });
        await tx.insertVersion({
          queryId: row.id, number: 1, sql: row.sql, parameters: row.parameters, connectionId: row.connectionId,
          restoredFrom: null, createdBy: actor.userId ?? null, createdAt: now,
        });
        return row;
      });
    },

    async update(id: string, input: {
      version: number; name?: string | undefined; key?: string | undefined; description?: string | null | undefined;
      connectionId?: string | undefined; sql?: string | undefined; parameters?: QueryParameter[] | undefined;
    }, actor: Actor) {
      return deps.uow.run(async ({ queries: tx }) => {
        const before = await get(tx, id);
        const sql = input.sql ?? before.sql;
        const parameters = input.parameters ?? before.parameters;
        const connectionId = input.connectionId ?? before.connectionId;
        const definitionChanged = sql !== before.sql || connectionId !== before.connectionId || !sameParameters(parameters, before.parameters);
        if (definitionChanged) checkDefinition(sql, parameters);
        const now = clock.now();
        const number = before.currentVersion + 1;
        const after = await tx.update(id, input.version, {
          ...(input.name !== undefined ? { name: input.name.trim() } : {}),
          ...(input.key !== undefined ? { key: input.key } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(definitionChanged ? { sql, parameters, connectionId, currentVersion: number } : {}),
        }, now);
        if (definitionChanged) {
          await tx.insertVersion({ queryId: id, number, sql, parameters, connectionId, restoredFrom: null, createdBy: actor.userId ?? null, createdAt: now });
        }
        return after;
      });
    },

    async restore(id: string, input: { number: number; version: number }, actor: Actor) {
      return deps.uow.run(async ({ queries: tx }) => {
        const before = await get(tx, id);
        const old = await tx.findVersion(id, input.number);
        if (!old) throw notFound('query version');
        const now = clock.now();
        const number = before.currentVersion + 1;
        const after = await tx.update(id, input.version, {
          sql: old.sql, parameters: old.parameters, connectionId: old.connectionId, currentVersion: number,
        }, now);
        await tx.insertVersion({
          queryId: id, number, sql: old.sql, parameters: old.parameters, connectionId: old.connectionId,
          restoredFrom: old.number, createdBy: actor.userId ?? null, createdAt: now,
        });
        return after;
      });
    },

    async delete(id: string): Promise<void> {
      await get(store, id);
      const dependents = await deps.usage.dependentsOf(id);
      if (dependents.length > 0) throw inUse('query', dependents);
      if (!(await store.delete(id))) throw notFound('query');
    },

    async versions(id: string, q: PageRequest) {
      await get(store, id);
      return store.listVersions(id, q);
    },

    async version(id: string, number: number) {
      const v = await store.findVersion(id, number);
      if (!v) throw notFound('query version');
      return v;
    },
  };
}

export type QueriesService = ReturnType<typeof createQueriesService>;
