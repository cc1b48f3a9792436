/**
 * For the SDK's tests: a Herald listening on a real port (api and worker roles), a loopback proxy
 * in front of it, an admin API key, a Postgres source with a connection, and an SDK client that
 * goes through the proxy.
 */
import { createClient, type HeraldClient } from '../../sdk/src/index.js';
import { freePorts } from './child-process.js';
import { startHerald, type Herald } from './harness.js';
import { createKey, setupAdmin, type SessionClient } from './identity.js';
import { startLoopbackProxy, type LoopbackProxy } from './loopback-proxy.js';
import { createPostgresSource, type PostgresSource } from './user-databases.js';

export interface SdkHerald {
  h: Herald;
  admin: SessionClient;
  proxy: LoopbackProxy;
  apiKey: string;
  client: HeraldClient;
  src: PostgresSource;
  connectionId: string;
  /** A report of a new query with this SQL; answers its id. */
  report(title: string, sql: string): Promise<string>;
  stop(): Promise<void>;
}

/** `env`: more settings (e.g. SVC_OUTBOUND_ALLOW for webhooks to loopback peers); `sdkPackage`: the packed SDK to serve. */
export async function startSdkHerald(options: { env?: Record<string, string>; sdkPackage?: string } = {}): Promise<SdkHerald> {
  const [port] = await freePorts(1);
  const h = await startHerald({
    listen: true, env: { ...options.env, SVC_ROLES: 'api,worker', SVC_LISTEN: `127.0.0.1:${port}` },
    ...(options.sdkPackage ? { sdkPackage: options.sdkPackage } : {}),
  });
  if (!h.process.url) throw new Error('herald is not listening');
  const admin = await setupAdmin(h);
  const { token: apiKey } = await createKey(admin, { name: 'sdk', scope: 'admin' });
  const proxy = await startLoopbackProxy(h.process.url);
  // Short backoff steps keep the tests quick; Retry-After is still honoured in full.
  const client = createClient({ baseUrl: proxy.url, apiKey, retry: { retries: 3, baseDelayMs: 50, maxDelayMs: 5000 }, userAgent: 'sdk-test' });
  const src = await createPostgresSource(async () => undefined);
  const connection = await client.call('createConnection', { body: src.connection('Source') as never });
  return {
    h, admin, proxy, apiKey, client, src, connectionId: connection.id,
    async report(title, sql) {
      const query = await client.call('createQuery', { body: { name: title, connection_id: connection.id, sql } });
      return (await client.call('createReport', { body: { title, query_id: query.id } })).id;
    },
    async stop() {
      await proxy.close();
      await h.stop();
      await src.drop();
    },
  };
}
