/**
 * How a run's page follows it: GET /events invalidates the run on each run.updated, and while the
 * run is unfinished it is also read again every RUN_POLL_MS (an answer by its ETag, 304 when
 * nothing changed), so an event the stream missed (a reconnect, a proxy's buffer) costs seconds,
 * not a stale page until a reload.
 */
export const RUN_POLL_MS = 10_000;

/** The poll for a run as last read: RUN_POLL_MS while it is pending or running, none once it has ended. */
export function runPollMs(run: { status: string } | undefined): number | false {
  return run !== undefined && (run.status === 'pending' || run.status === 'running') ? RUN_POLL_MS : false;
}
