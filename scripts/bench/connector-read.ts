/**
 * Benchmark: reading a large result through the connector plugins, as a report run does: rows per
 * second and peak memory (process.memoryUsage sampled every 50 ms) while 1,000,000 rows of ten
 * mixed columns stream from the local PostgreSQL in batches (server-side portal), and 200,000
 * rows from the local MariaDB (streaming query) when one answers. Prints figures; asserts nothing.
 *   npx tsx scripts/bench/connector-read.ts
 * Uses SVC_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and
 * HERALD_TEST_MYSQL_URL (default mysql://root@127.0.0.1:3306); BENCH_ROWS, BENCH_MYSQL_ROWS and
 * BENCH_BATCH change the sizes.
 */
import type { ConnectionConfig, Connector } from '../../src/domain/plugins/connector.js';
import { mysqlConnector } from '../../src/plugins/mysql/index.js';
import { postgresConnector } from '../../src/plugins/postgres/index.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const MYSQL_ROWS = Number(process.env.BENCH_MYSQL_ROWS ?? 200_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);
const MiB = 1048576;

const PG_SQL = `
select g as int_col,
       g::bigint * 1000003 as bigint_col,
       (g / 7.0)::numeric(20,6) as numeric_col,
       md5(g::text) as text_col,
       timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' as timestamptz_col,
       g % 2 = 0 as bool_col,
       md5(g::text)::uuid as uuid_col,
       g / 3.0::float8 as float_col,
       date '2024-01-01' + (g % 3650) as date_col,
       jsonb_build_object('g', g, 'even', g % 2 = 0) as jsonb_col
  from generate_series(1, $1::int) g`;

const MYSQL_SQL = `
SELECT seq AS int_col,
       seq * 1000003 AS bigint_col,
       CAST(seq / 7 AS DECIMAL(20,6)) AS decimal_col,
       MD5(seq) AS text_col,
       TIMESTAMPADD(SECOND, seq, TIMESTAMP '2024-01-01 00:00:00') AS datetime_col,
       seq % 2 = 0 AS bool_col,
       UUID() AS uuid_col,
       seq / 3e0 AS double_col,
       DATE '2024-01-01' + INTERVAL (seq % 3650) DAY AS date_col,
       JSON_OBJECT('g', seq, 'even', seq % 2 = 0) AS json_col
  FROM seq_1_to_${Math.trunc(MYSQL_ROWS)}`;

function configFrom(url: URL, database: string, port: number): ConnectionConfig {
  return {
    host: url.hostname, port: url.port ? Number(url.port) : port, database,
    username: decodeURIComponent(url.username), password: url.password ? decodeURIComponent(url.password) : null,
    sslMode: 'disable', sslCa: null, options: {},
  };
}

async function measure(label: string, connector: Connector, config: ConnectionConfig, sql: string, params: Array<string | number>): Promise<void> {
  const session = connector.open(config, { poolSize: 1, connectTimeoutMs: 5000 });
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 50);
  try {
    const started = performance.now();
    const stream = await session.execute({ sql, params }, { signal: new AbortController().signal, timeoutMs: 600_000, batchSize: BATCH });
    let rows = 0;
    let cells = 0;
    for await (const batch of stream.batches) {
      rows += batch.length;
      cells += batch.length * (batch[0]?.length ?? 0);
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`${label.padEnd(30)} ${rows} rows × ${stream.columns.length} columns (${cells} values) in ${seconds.toFixed(2)} s: ${Math.round(rows / seconds)} rows/s`);
    console.log(`${''.padEnd(30)} memory: RSS ${(before.rss / MiB).toFixed(0)} → peak ${(peakRss / MiB).toFixed(0)} MiB, heap used ${(before.heapUsed / MiB).toFixed(0)} → peak ${(peakHeap / MiB).toFixed(0)} MiB (batches of ${BATCH})`);
  } finally {
    clearInterval(sampler);
    await session.close();
  }
}

async function main(): Promise<void> {
  const pgUrl = new URL(process.env.SVC_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  await measure('postgres (portal, extended)', postgresConnector, configFrom(pgUrl, pgUrl.pathname.slice(1) || 'postgres', 5432), PG_SQL, [ROWS]);
  const myUrl = new URL(process.env.HERALD_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306');
  try {
    await measure('mysql (streaming, binary)', mysqlConnector, configFrom(myUrl, 'mysql', 3306), MYSQL_SQL, []);
  } catch (err) {
    console.log(`mysql: skipped (${(err as Error).message})`);
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
