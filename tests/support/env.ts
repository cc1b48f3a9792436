/**
 * Where the test suite finds Postgres and Redis: `make test` and `make test-file FILE=...` set
 * SVC_DATABASE_URL / SVC_REDIS_URL from scripts/ensure-services.sh (which may start private
 * instances on other ports under .data/). A bare `npm test` without them assumes the default ports.
 */
export const adminDatabaseUrl = (): string => {
  const base = process.env.SVC_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const u = new URL(base);
  u.pathname = '/postgres';
  return u.toString();
};

export const redisUrl = (): string => process.env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const databaseUrl = (name: string): string => {
  const u = new URL(adminDatabaseUrl());
  u.pathname = `/${name}`;
  return u.toString();
};
