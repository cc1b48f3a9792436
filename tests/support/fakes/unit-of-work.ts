/**
 * The unit of work on in-memory fakes: `run` hands the work the fakes it was given as its
 * repositories and, when the work throws, puts every one of them back as it was before (a
 * rollback), so a test sees what a real transaction leaves behind. A repository the test did not
 * give fails when used, naming it.
 */
import type { TxRepos, UnitOfWork } from '../../../src/domain/unit-of-work/ports.js';
import type { Transactional } from './table.js';

export interface FakeUnitOfWork extends UnitOfWork {
  /** Units of work that committed, and that rolled back. */
  readonly commits: number;
  readonly rollbacks: number;
}

const isTransactional = (value: unknown): value is Transactional =>
  typeof (value as Partial<Transactional> | undefined)?.snapshot === 'function';

export function fakeUnitOfWork(repos: Partial<TxRepos>): FakeUnitOfWork {
  const tx = new Proxy(repos, {
    get(target, name) {
      const repo = target[name as keyof TxRepos];
      if (repo === undefined && typeof name === 'string' && name !== 'then') throw new Error(`tx.${name} is not faked in this test`);
      return repo;
    },
  }) as TxRepos;
  const uow = {
    commits: 0,
    rollbacks: 0,
    async afterCommit(work: () => Promise<void>): Promise<void> {
      await work();
    },
    async run<T>(work: (tx: TxRepos) => Promise<T>): Promise<T> {
      const restores = (Object.values(repos) as unknown[]).filter(isTransactional).map((r) => r.snapshot());
      try {
        const result = await work(tx);
        uow.commits += 1;
        return result;
      } catch (err) {
        for (const restore of restores) restore();
        uow.rollbacks += 1;
        throw err;
      }
    },
  };
  return uow;
}
