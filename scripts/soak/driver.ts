/**
 * The soak's client of the API: the first admin and an admin key, a connection to the soak's
 * database, a webhook channel to the receiver, reports every minute and reports run by hand,
 * each with a delivery to the channel; manual runs at a steady rate, each request retried (same
 * Idempotency-Key) while the API is away; the scheduled reports paused at the end.
 */
import { randomUUID } from 'node:crypto';

export interface Driver {
  scheduledIds: string[];
  manualIds: string[];
  /** Asks for `perMinute` manual runs a minute until `endAt`; answers what the API accepted. */
  driveManual(perMinute: number, endAt: number): Promise<{ accepted: Set<string>; refused: number; retried: number }>;
  pauseScheduled(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function createDriver(apiUrl: string, o: {
  connection: { host: string; port: number; database: string; username: string };
  hookUrl: string; scheduled: number; manual: number;
}): Promise<Driver> {
  let token = '';
  /** One request, retried while the API does not answer or answers 5xx (up to `patienceMs`). */
  const call = async (method: string, path: string, body: unknown, extra: Record<string, string> = {}, patienceMs = 120_000) => {
    const until = Date.now() + patienceMs;
    let tries = 0;
    for (;;) {
      tries += 1;
      try {
        const res = await fetch(`${apiUrl}/api/v1${path}`, {
          method,
          headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        if (res.status < 500) return { status: res.status, body: await res.json().catch(() => ({})) as Record<string, unknown>, tries, headers: res.headers };
      } catch { /* the API is away: again */ }
      if (Date.now() > until) return { status: 0, body: {}, tries, headers: new Headers() };
      await sleep(1000);
    }
  };
  const create = async (path: string, body: unknown): Promise<string> => {
    const res = await call('POST', path, body);
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };

  const setup = await call('POST', '/setup', { name: 'Soak', email: 'soak@example.com', password: 'a long soak password' });
  if (setup.status !== 201) throw new Error(`POST /setup: ${setup.status} ${JSON.stringify(setup.body)}`);
  const cookie = setup.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const key = await call('POST', '/api-keys', { name: 'soak', scope: 'admin' }, { Cookie: cookie, 'X-CSRF-Token': setup.body.csrf_token as string });
  if (key.status !== 201) throw new Error(`POST /api-keys: ${key.status} ${JSON.stringify(key.body)}`);
  token = key.body.token as string;

  const connectionId = await create('/connections', { name: 'Soak source', type: 'postgres', ...o.connection, ssl_mode: 'disable' });
  const queryId = await create('/queries', { name: 'Soak rows', connection_id: connectionId, sql: 'select n, n * n as square from generate_series(1, 50) n' });
  const channelId = await create('/channels', { name: 'Soak hook', type: 'webhook', settings: { url: o.hookUrl } });
  const report = async (title: string, schedule: boolean) => {
    const id = await create('/reports', {
      title, query_id: queryId, ...(schedule ? { schedule: { cron: '* * * * *', timezone: 'Europe/Berlin' } } : {}),
    });
    await create(`/reports/${id}/deliveries`, { channel_id: channelId, settings: {} });
    return id;
  };
  const manualIds: string[] = [];
  for (let i = 1; i <= o.manual; i += 1) manualIds.push(await report(`Manual ${i}`, false));
  const scheduledIds: string[] = [];
  for (let i = 1; i <= o.scheduled; i += 1) scheduledIds.push(await report(`Every minute ${i}`, true));

  return {
    scheduledIds,
    manualIds,
    async driveManual(perMinute, endAt) {
      const accepted = new Set<string>();
      let refused = 0;
      let retried = 0;
      const inFlight = new Set<Promise<void>>();
      const gap = 60_000 / perMinute;
      for (let n = 0, next = Date.now(); next < endAt; n += 1, next += gap) {
        if (next > Date.now()) await sleep(next - Date.now());
        const reportId = manualIds[n % manualIds.length]!;
        const p = (async () => {
          const res = await call('POST', `/reports/${reportId}/run`, { deliver: true }, { 'Idempotency-Key': randomUUID() });
          if (res.tries > 1) retried += 1;
          if (res.status === 202) accepted.add(res.body.id as string);
          else refused += 1;
        })();
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await Promise.all(inFlight);
      return { accepted, refused, retried };
    },
    async pauseScheduled() {
      for (const id of scheduledIds) {
        const res = await call('POST', `/reports/${id}/pause`, {});
        if (res.status !== 200) throw new Error(`POST /reports/${id}/pause: ${res.status} ${JSON.stringify(res.body)}`);
      }
    },
  };
}
