import type { Schemas } from '@herald/sdk';

type Kind = Schemas['ProblemKind'];

/** Every problem kind of the contract (the Record makes the compiler name a missing one). */
const KIND_SET: Record<Kind, true> = {
  'scheduler.stalled': true, 'queue.backlog': true, 'queue.unavailable': true, 'runs.lost': true, 'channel.failing': true,
  'report.failing': true, 'storage.error': true, 'storage.nearly_full': true, 'retention.failing': true, 'gitops.failing': true,
  'ai.failing': true, 'api_key.expiring': true,
};
export const PROBLEM_KINDS = Object.keys(KIND_SET) as Kind[];
