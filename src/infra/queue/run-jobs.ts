/**
 * The runs queue as the scheduler sees it (the runs domain's RunJobs port): bulk enqueueing of
 * due runs and, for the sweep, a run's job state and re-enqueueing. Job id = run id.
 */
import type { Queue } from 'bullmq';
import type { QueuedJobSpec } from './queues.js';

export function createRunJobs(queue: Queue, spec: QueuedJobSpec<string>) {
  const options = (runId: string) => ({ jobId: runId, attempts: spec.attempts, backoff: { type: 'exponential', delay: spec.backoffMs } });
  return {
    async state(runId: string) {
      const job = await queue.getJob(runId);
      if (!job) return 'missing' as const;
      return (await job.getState()) as 'waiting' | 'active' | 'delayed' | 'prioritized' | 'completed' | 'failed' | 'waiting-children' | 'unknown';
    },
    async requeue(run: { id: string; reportId: string }) {
      const runId = run.id;
      const job = await queue.getJob(runId);
      // A finished job keeps its id: BullMQ would ignore an add with it.
      if (job && (job.finishedOn !== undefined || (await job.isFailed()) || (await job.isCompleted()))) await job.remove();
      await queue.add(spec.name, { runId, reportId: run.reportId }, options(runId));
    },
    async enqueueMany(runs: Array<{ id: string; reportId: string }>) {
      for (let i = 0; i < runs.length; i += 1000) {
        await queue.addBulk(runs.slice(i, i + 1000).map((r) => ({ name: spec.name, data: { runId: r.id, reportId: r.reportId }, opts: options(r.id) })));
      }
    },
  };
}
