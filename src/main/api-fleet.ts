/**
 * Several API processes on one address (SVC_API_PROCESSES > 1), with node:cluster: one API
 * process uses one core, and Node 20 has no SO_REUSEPORT option. The primary process forks the
 * API processes (each `SVC_ROLES=api`, sharing nothing but the store and Redis, as separate hosts
 * would), lets the cluster share SVC_LISTEN (and SVC_PROBE_LISTEN) among them (connections are
 * handed out round-robin), runs the process's other roles itself (scheduler, worker), restarts an
 * API process that exits without being asked (after a pause that grows while they keep failing),
 * and on SIGTERM stops its own roles and every API process, each draining as a single process does.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../infra/log/logger.js';

/** Pause before a restart: doubles from 1 s while API processes keep exiting within a minute, up to 30 s. */
const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 30_000;
const STABLE_MS = 60_000;

export interface ApiFleet {
  /** Stops every API process (SIGTERM, then SIGKILL past the limit) and answers once all have exited. */
  stop(timeoutMs: number): Promise<void>;
}

/** Whether this process is one of a fleet's API processes (forked by the primary). */
export const isFleetMember = (): boolean => cluster.isWorker;

export function startApiFleet(count: number, logger: Logger): ApiFleet {
  const log = logger.child({ component: 'api-fleet' });
  let stopping = false;
  let pause = RESTART_MIN_MS;
  const startedAt = new Map<Worker, number>();
  const fork = () => {
    // The member's settings are this process's, with the API as its only role.
    const w = cluster.fork({ SVC_ROLES: 'api' });
    startedAt.set(w, Date.now());
  };
  cluster.on('exit', (w, code, signal) => {
    const lived = Date.now() - (startedAt.get(w) ?? Date.now());
    startedAt.delete(w);
    if (stopping) return;
    pause = lived > STABLE_MS ? RESTART_MIN_MS : Math.min(RESTART_MAX_MS, pause * 2);
    log.error('an API process exited; starting another', { pid: w.process.pid, code, signal, restart_in_ms: pause });
    setTimeout(() => { if (!stopping) fork(); }, pause).unref();
  });
  for (let i = 0; i < count; i += 1) fork();
  log.info('API processes started', { count });
  return {
    async stop(timeoutMs) {
      stopping = true;
      const members = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
      await Promise.all(members.map((w) => new Promise<void>((resolve) => {
        const killer = setTimeout(() => {
          log.warn('an API process did not stop in time; killed', { pid: w.process.pid });
          w.process.kill('SIGKILL');
        }, timeoutMs + 5_000);
        w.once('exit', () => { clearTimeout(killer); resolve(); });
        // `kill -TERM -<group>` may have reached it already: a second signal within a second is ignored there.
        w.process.kill('SIGTERM');
      })));
      log.info('API processes stopped', { count: members.length });
    },
  };
}
