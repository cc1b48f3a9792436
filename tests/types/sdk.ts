/**
 * Compile-time proof that the SDK is typed from openapi.yaml: `call` takes the operation's own
 * path, query and body and answers its 2xx body; a wrong body, a missing path parameter or an
 * unknown operationId does not compile; `paginate` takes only cursor-paginated lists; events
 * narrow on `event`; HeraldError's code is the union of the contract's problem codes.
 * `make test` type-checks this file (`npm run typecheck`); each @ts-expect-error must stay an error.
 * Nothing here runs: the functions are declared, never called.
 */
import { createClient, HeraldError, type HeraldEvent, type ProblemCode } from '../../sdk/src/index.js';

const client = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'hk_x' });
const id = '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70';

export async function typedCalls(): Promise<void> {
  const report = await client.call('createReport', { body: { title: 'Daily', query_id: id } });
  const title: string = report.title;
  const run = await client.call('getRun', { path: { runId: id } });
  const status: 'pending' | 'running' | 'success' | 'partial' | 'skipped' | 'failed' | 'cancelled' = run.status;
  const runs = await client.call('listRuns', { query: { status: 'failed', limit: 10 } });
  const next: string | undefined = runs.next_cursor;
  // An operation without required parameters takes none.
  await client.call('listReports');
  void [title, status, next];

  // @ts-expect-error title must be a string (a wrong body)
  await client.call('createReport', { body: { title: 42, query_id: id } });
  // @ts-expect-error query_id is required
  await client.call('createReport', { body: { title: 'Daily' } });
  // @ts-expect-error an unknown field of a closed schema
  await client.call('runReport', { path: { reportId: id }, body: { deliver: true, hurry: true } });
  // @ts-expect-error the path parameter is required
  await client.call('getRun', {});
  // @ts-expect-error an unknown status in the query
  await client.call('listRuns', { query: { status: 'exploded' } });
  // @ts-expect-error an unknown operationId
  await client.call('launchMissiles', {});
  // @ts-expect-error the raw client knows every path too
  await client.raw.GET('/api/v1/no-such-path', {});
}

export async function paginated(): Promise<void> {
  for await (const run of client.paginate('listRuns', { query: { status: 'failed' } })) {
    const reportId: string = run.report_id;
    void reportId;
  }
  // @ts-expect-error getRun is not a list
  client.paginate('getRun', { path: { runId: id } });
}

export function narrowed(event: HeraldEvent): string | undefined {
  if (event.event === 'run.updated') return event.data.status;
  // @ts-expect-error report.updated has no status
  if (event.event === 'report.updated') return event.data.status;
  return undefined;
}

export function codes(err: unknown): boolean {
  if (!(err instanceof HeraldError)) return false;
  const code: ProblemCode | 'unknown' = err.code;
  // @ts-expect-error not a code of the contract
  if (err.code === 'validation.nope') return true;
  return code === 'validation.failed' && err.errors.every((e) => typeof e.field === 'string');
}
