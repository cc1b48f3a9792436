/**
 * What the runs, links, dashboard and notifications tests arrange through the seed client: a
 * scratch Postgres database (items 1..30 and a `gate` table a test can lock, so a run stays running
 * until the test lets it go), a connection to it, a webhook channel at the fixture's receiver, and
 * reports with a webhook delivery. Titles carry a suffix, so tests sharing one Herald never meet.
 */
import type postgres from 'postgres';
import type { HeraldClient } from '../../../sdk/src/index.js';
import { createPostgresSource, type PostgresSource } from '../../../tests/support/user-databases.js';
import type { RunningHerald } from './herald.js';

export interface RunsData {
  src: PostgresSource;
  connectionId: string;
  channelId: string;
  channelName: string;
  /** A report of `sql` (with the webhook delivery unless `deliver` is false, and a schedule if given); answers its id. */
  report(title: string, sql: string, options?: { deliver?: boolean; schedule?: { cron: string; timezone: string } }): Promise<string>;
  /** Holds an exclusive lock on `gate` until the answer's release() is called. */
  lockGate(): Promise<{ release(): Promise<void> }>;
  drop(): Promise<void>;
}

export const ITEMS_SQL = 'select n, label from items order by n';
/** Waits for `gate` (locked by lockGate) before answering the items. */
export const GATED_SQL = 'select n, label, (select count(*) from gate) as gate from items order by n';
export const BROKEN_SQL = 'select 1 / (select count(*) from gate) as boom';

let counter = 0;

export async function arrangeRuns(herald: RunningHerald, name: string): Promise<RunsData> {
  const seed: HeraldClient = herald.seed;
  const src = await createPostgresSource(async (sql: postgres.Sql) => {
    await sql`create table items (n int primary key, label text not null)`;
    await sql`insert into items select n, 'item ' || n from generate_series(1, 30) n`;
    await sql`create table gate (id int)`;
  });
  counter += 1;
  const connection = await seed.call('createConnection', { body: src.connection(`${name} source ${counter}`) as never });
  const channelName = `${name} hook ${counter}`;
  const channel = await seed.call('createChannel', {
    body: { name: channelName, type: 'webhook', settings: { url: `${herald.webhook.url}/hook` } },
  });
  return {
    src, connectionId: connection.id, channelId: channel.id, channelName,
    async report(title, sql, options = {}) {
      const query = await seed.call('createQuery', { body: { name: title, connection_id: connection.id, sql } });
      const report = await seed.call('createReport', { body: { title, query_id: query.id, ...(options.schedule ? { schedule: options.schedule } : {}) } });
      if (options.deliver !== false) await seed.call('createDelivery', { path: { reportId: report.id }, body: { channel_id: channel.id, settings: {} } });
      return report.id;
    },
    async lockGate() {
      let release!: () => void;
      const released = new Promise<void>((r) => { release = r; });
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => { locked = r; });
      const done = src.sql.begin(async (tx) => {
        await tx`lock table gate in access exclusive mode`;
        locked();
        await released;
      });
      await isLocked;
      return { release: async () => { release(); await done; } };
    },
    drop: () => src.drop(),
  };
}

/** Queues a manual run through the API (as a pipeline would) and answers its id. */
export async function queueRun(seed: HeraldClient, reportId: string, deliver = true): Promise<string> {
  const run = await seed.call('runReport', { path: { reportId }, body: { deliver } });
  return run.id;
}

/** Waits (through the API, on the server's events) until the run finished; answers its status. */
export async function finished(seed: HeraldClient, runId: string): Promise<string> {
  for (;;) {
    const run = await seed.call('getRun', { path: { runId } });
    if (!['pending', 'running'].includes(run.status) && !run.delivery_attempts.some((a) => ['pending', 'sending', 'queued'].includes(a.status))) return run.status;
    await new Promise((r) => setTimeout(r, 200));
  }
}
