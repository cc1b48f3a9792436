/** Waiting for a run through the API, as a client would: polling GET /runs/{id}. */
import type { Response } from 'supertest';
import type { HttpClient } from './harness.js';

/** The run as the API answered it (a response body: the contract checks its shape). */
export type RunBody = Response['body'];

const finished = (run: RunBody): boolean => !['pending', 'running'].includes(run.status);

/** Polls the run every 50 ms until `until` holds (default: it finished); throws after `ms`. */
export async function waitForRun(client: HttpClient, id: string, until: (run: RunBody) => boolean = finished, ms = 20_000): Promise<RunBody> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await client.get(`/api/v1/runs/${id}`);
    if (res.status !== 200) throw new Error(`GET /runs/${id} answered ${res.status}: ${res.text}`);
    const run = res.body as RunBody;
    if (until(run)) return run;
    if (Date.now() > deadline) {
      // What its deliveries say, for whoever reads the failure.
      const attempts = ((run.delivery_attempts ?? []) as Array<Record<string, unknown>>)
        .map((a) => `${String(a.status)} sends ${String(a.sends)} ${JSON.stringify(a.error ?? null)} next ${String(a.next_retry_at)}`);
      throw new Error(`run ${id} is still ${run.status}${attempts.length > 0 ? ` (deliveries: ${attempts.join('; ')})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
