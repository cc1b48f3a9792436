/**
 * The PostgreSQL connector's pool never hands out a connection near its idle timeout: one idle
 * longer than the pool's limit (50 s, below postgres.js's 60 s idle_timeout) is ended and a new
 * one opened. The soak's runs every minute took connections just as postgres.js's idle timer
 * closed them, and failed with CONNECTION_CLOSED.
 */
import { createPgPool } from '../../src/plugins/postgres/pool.js';
import { adminDatabaseUrl } from '../support/env.js';

const url = new URL(adminDatabaseUrl());
const config = {
  host: url.hostname, port: Number(url.port || 5432), database: 'postgres', username: decodeURIComponent(url.username || 'postgres'),
  password: url.password ? decodeURIComponent(url.password) : null, sslMode: 'disable' as const, sslCa: null, options: {},
};

it('reuses an idle connection within the limit, and opens a new one after it', async () => {
  const pool = createPgPool(config, { poolSize: 2, connectTimeoutMs: 5000 }, 400);
  try {
    const pid = async () => {
      const c = await pool.reserve();
      try { return (await c`select pg_backend_pid() as pid`)[0]!.pid as number; } finally { c.release(); }
    };
    const first = await pid();
    expect(await pid()).toBe(first);
    await new Promise((r) => setTimeout(r, 600));
    const later = await pid();
    expect(later).not.toBe(first);
    expect(await pid()).toBe(later);
  } finally {
    await pool.end(1);
  }
});
