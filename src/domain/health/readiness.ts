/**
 * Readiness: store (the internal database answers), migrations (the schema is up to date), redis
 * (the queues and the event bus answer a ping; ok but marked degraded, not unhealthy, while a
 * Redis under Sentinel switches its primary) and,
 * on instances that schedule, scheduler (a tick completed within the last three ticks) and, with
 * a configuration directory (SVC_GITOPS_DIR), gitops (unhealthy when its last three reconciles failed).
 */
export type ComponentStatus = { status: 'ok'; degraded?: true; detail?: string } | { status: 'unhealthy'; detail: string };

/**
 * The spec names two states, ok and unhealthy. A degraded component is ok (the process still
 * serves, the probe answers 200) with `degraded: true` and its detail, and so is the whole:
 * `degraded: true` on it says that one of its components is.
 */
export interface Readiness {
  status: 'ok' | 'unhealthy';
  degraded?: true;
  components: { store: ComponentStatus; migrations: ComponentStatus; redis?: ComponentStatus; scheduler?: ComponentStatus; gitops?: ComponentStatus };
}

export interface ReadinessProbes {
  storeAnswers(): Promise<boolean>;
  pendingMigrations(): Promise<number>;
  /** Redis (the queues and the event bus) answers a ping in time. */
  redisAnswers?(): Promise<boolean>;
  /**
   * Asked only when Redis does not answer: whether its primary is switching (Redis Sentinel
   * answers, and the outage is within the time Sentinel allows itself to detect the failure and
   * fail over), which makes the component degraded instead of unhealthy.
   */
  redisSwitching?(): Promise<boolean>;
  /** Present only where the scheduler role runs. */
  scheduler?: { lastTickAt(): Date | undefined; tickSeconds: number; startedAt: Date };
  /** Present only where the scheduler role reconciles a configuration directory. */
  gitops?: { failures(): number; unhealthyAfter: number };
  /** The injected clock's time. */
  now: () => Date;
}

export function schedulerStatus(
  probe: NonNullable<ReadinessProbes['scheduler']>, now: Date,
): ComponentStatus {
  const window = probe.tickSeconds * 3 * 1000;
  const last = probe.lastTickAt();
  if (last && now.getTime() - last.getTime() <= window) return { status: 'ok' };
  // A scheduler that has just started gets the same grace as one that just ticked.
  if (!last && now.getTime() - probe.startedAt.getTime() <= window) return { status: 'ok' };
  return { status: 'unhealthy', detail: 'no scheduler tick completed within the last three tick intervals' };
}

export async function checkReadiness(probes: ReadinessProbes): Promise<Readiness> {
  const now = probes.now();
  const storeOk = await probes.storeAnswers();
  const store: ComponentStatus = storeOk ? { status: 'ok' } : { status: 'unhealthy', detail: 'the internal database does not answer' };
  let migrations: ComponentStatus;
  if (!storeOk) {
    migrations = { status: 'unhealthy', detail: 'unknown while the store does not answer' };
  } else {
    let pending: number;
    try {
      pending = await probes.pendingMigrations();
    } catch {
      pending = -1;
    }
    migrations = pending === 0 ? { status: 'ok' }
      : { status: 'unhealthy', detail: pending < 0 ? 'the migration state cannot be read' : `${pending} migration(s) not applied; run herald migrate` };
  }
  const components: Readiness['components'] = { store, migrations };
  if (probes.redisAnswers) {
    const ok = await probes.redisAnswers().catch(() => false);
    const switching = !ok && probes.redisSwitching ? await probes.redisSwitching().catch(() => false) : false;
    components.redis = ok ? { status: 'ok' }
      : switching ? { status: 'ok', degraded: true, detail: 'the Redis primary is switching under Sentinel: runs are queued and live events go on once the new primary answers' }
        : { status: 'unhealthy', detail: 'Redis does not answer: runs cannot be queued and live events stop' };
  }
  if (probes.scheduler) components.scheduler = schedulerStatus(probes.scheduler, now);
  if (probes.gitops) {
    const failures = probes.gitops.failures();
    components.gitops = failures < probes.gitops.unhealthyAfter ? { status: 'ok' }
      : { status: 'unhealthy', detail: 'the configuration directory could not be applied in the last reconciles (GET /api/v1/gitops/status says why)' };
  }
  const all = Object.values(components);
  const status = all.some((c) => c.status === 'unhealthy') ? 'unhealthy' : 'ok';
  return { status, ...(all.some((c) => c.status === 'ok' && c.degraded) ? { degraded: true as const } : {}), components };
}

/**
 * Healthy (degraded counts: a failover of a few seconds does not stop the heartbeat), or the
 * first unhealthy component with its detail (the heartbeat's fail reason).
 */
export function healthOf(r: Readiness): { healthy: boolean; reason: string | null } {
  const bad = Object.entries(r.components).find(([, c]) => c.status === 'unhealthy');
  return bad ? { healthy: false, reason: `${bad[0]}: ${(bad[1] as { detail: string }).detail}` } : { healthy: true, reason: null };
}
