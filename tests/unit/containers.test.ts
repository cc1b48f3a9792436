/**
 * The container files, read as a reviewer would (no Docker on the test machines): compose.yaml
 * parsed with js-yaml (merge keys resolved), the Dockerfile's stages and instructions,
 * .dockerignore, and the licence.
 */
import { readFileSync } from 'node:fs';
import { load, YAML11_SCHEMA } from 'js-yaml';
import { KNOWN_SETTINGS } from '../../src/infra/config/settings.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  restart?: string;
  healthcheck?: { test?: string[]; disable?: boolean };
  profiles?: string[];
  entrypoint?: string[];
  volumes?: string[];
}

// Compose resolves YAML merge keys (<<: *herald), which js-yaml does under its YAML 1.1 schema.
const compose = load(read('compose.yaml'), { schema: YAML11_SCHEMA }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const ROLES = ['api', 'scheduler', 'worker'];
const HA = ['pgbouncer', 'redis-replica', 'sentinel-1', 'sentinel-2', 'sentinel-3'];
const SENTINELS = ['sentinel-1', 'sentinel-2', 'sentinel-3'];

describe('compose.yaml', () => {
  const s = compose.services;

  it('runs postgres:16, redis:7, a one-shot migrate, then api, scheduler and worker (and more only under the profile ha)', () => {
    expect(Object.keys(s).filter((n) => !s[n]!.profiles).sort()).toEqual(['api', 'migrate', 'postgres', 'redis', 'scheduler', 'worker']);
    expect(s.postgres!.image).toBe('postgres:16');
    expect(s.redis!.image).toBe('redis:7');
    expect(s.postgres!.healthcheck!.test).toContain('pg_isready');
    expect(s.migrate).toMatchObject({ command: ['migrate'], restart: 'no', depends_on: { postgres: { condition: 'service_healthy' } } });
    for (const role of ROLES) {
      expect(s[role]!.command).toEqual([role]);
      const ha = { condition: 'service_healthy', required: false };
      expect(s[role]!.depends_on).toEqual({
        migrate: { condition: 'service_completed_successfully' }, redis: { condition: 'service_healthy' },
        'sentinel-1': ha, 'sentinel-2': ha, 'sentinel-3': ha, pgbouncer: ha,
      });
      expect(s[role]!.restart).toBe('unless-stopped');
    }
    expect(s.api!.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(s.api!.environment!.SVC_LISTEN).toBe('0.0.0.0:8080');
  });

  it('builds one image for every Herald container, which shares the store, Redis, data volume and settings', () => {
    const herald = ['migrate', ...ROLES].map((name) => s[name]!);
    for (const svc of herald) {
      expect(svc.build).toBe('.');
      expect(svc.image).toBe('herald:local');
      // The single store and Redis unless .env names others (the profile ha's: the README, Topologies).
      expect(svc.environment!.SVC_DATABASE_URL).toMatch(/^\$\{HERALD_DATABASE_URL:-postgres:\/\/herald:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/herald\}$/);
      expect(svc.environment!.SVC_REDIS_URL).toBe('${HERALD_REDIS_URL:-redis://redis:6379}');
      expect(svc.environment!.SVC_DATABASE_DIRECT_URL).toBe('${HERALD_DATABASE_DIRECT_URL:-}');
      expect(svc.environment!.SVC_DATABASE_PREPARE).toBe('${HERALD_DATABASE_PREPARE:-true}');
    }
    const shared = (name: string) => new Set(herald.map((svc) => svc.environment![name]));
    expect(shared('SVC_SECRET_KEY').size).toBe(1);
    expect(shared('SVC_PUBLIC_URL').size).toBe(1);
  });

  it('gives every role a probe listener, so `herald healthcheck` has something to call', () => {
    for (const role of ROLES) expect([role, s[role]!.environment!.SVC_PROBE_LISTEN]).toEqual([role, '0.0.0.0:9464']);
  });

  it('uses only settings Herald knows (an unknown SVC_* stops start-up)', () => {
    for (const [name, svc] of Object.entries(s).filter(([n]) => n === 'migrate' || ROLES.includes(n))) {
      for (const key of Object.keys(svc.environment!)) expect([name, key, KNOWN_SETTINGS.includes(key)]).toEqual([name, key, true]);
    }
  });

  it('holds no secret: the key and the database password come from the environment, with no default', () => {
    for (const name of ['migrate', ...ROLES]) {
      expect(s[name]!.environment!.SVC_SECRET_KEY).toMatch(/^\$\{SVC_SECRET_KEY:\?[^}]+\}$/);
      expect(s[name]!.environment!.SVC_SECRET_KEY_PREVIOUS).toBe('${SVC_SECRET_KEY_PREVIOUS:-}');
    }
    expect(s.postgres!.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/);
    const text = read('compose.yaml');
    expect(text).not.toMatch(/[A-Za-z0-9+/]{43}=/); // no base64 of 32 bytes
    expect(text).not.toMatch(/\$\{(SVC_SECRET_KEY|POSTGRES_PASSWORD):-/); // no fallback value for a secret
  });

  it('keeps the store, Redis and the data folder in named volumes', () => {
    expect(Object.keys(compose.volumes).sort()).toEqual(['herald-data', 'postgres-data', 'redis-data', 'redis-replica-data', 'sentinel-1-data', 'sentinel-2-data', 'sentinel-3-data']);
    for (const svc of Object.values(s)) {
      for (const v of svc.volumes ?? []) expect(Object.keys(compose.volumes)).toContain(v.split(':')[0]);
    }
  });

  describe('the profile ha', () => {
    it('adds a Redis replica of redis and three sentinels watching it (quorum 2), and PgBouncer in transaction pooling in front of postgres', () => {
      for (const name of HA) expect([name, s[name]!.profiles]).toEqual([name, ['ha']]);
      expect(s['redis-replica']!.command).toEqual(expect.arrayContaining(['--replicaof', 'redis', '6379']));
      expect(s.redis!.command!.join(' ')).toContain('--replica-announce-ip redis');
      expect(s['redis-replica']!.command!.join(' ')).toContain('--replica-announce-ip redis-replica');
      for (const name of SENTINELS) {
        const script = s[name]!.command!.join(' ');
        expect(s[name]!.image).toBe('redis:7');
        expect(script).toContain("'sentinel monitor herald redis 6379 2'");
        expect(script).toContain('sentinel resolve-hostnames yes');
        expect(script).toMatch(/exec redis-server \/data\/sentinel\.conf --sentinel$/);
        expect(s[name]!.environment!.SENTINEL_NAME).toBe(name);
        expect(s[name]!.volumes).toEqual([`${name}-data:/data`]);
        expect(s[name]!.healthcheck!.test).toEqual(['CMD', 'redis-cli', '-p', '26379', 'sentinel', 'get-master-addr-by-name', 'herald']);
      }
      const b = s.pgbouncer!;
      expect(b.environment).toMatchObject({ DB_HOST: 'postgres', DB_PORT: '5432', DB_NAME: 'herald', DB_USER: 'herald', POOL_MODE: 'transaction' });
      expect(b.environment!.DB_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/);
      expect(b.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    });

    it('names, in its comment, the settings that point Herald at them, each at a service of the profile', () => {
      const text = read('compose.yaml');
      const lines = Object.fromEntries([...text.matchAll(/^# {3}(HERALD_[A-Z_]+|COMPOSE_PROFILES)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
      expect(lines.COMPOSE_PROFILES).toBe('ha');
      const sentinels = /^redis\+sentinel:\/\/(.+)\/herald$/.exec(lines.HERALD_REDIS_URL!)![1]!.split(',');
      expect(sentinels).toEqual(SENTINELS.map((n) => `${n}:26379`));
      expect(new URL(lines.HERALD_DATABASE_URL!).host).toBe('pgbouncer:5432');
      expect(new URL(lines.HERALD_DATABASE_DIRECT_URL!).host).toBe('postgres:5432');
      expect(lines.HERALD_DATABASE_PREPARE).toBe('false');
    });

    it('depends only on services that exist', () => {
      for (const [name, svc] of Object.entries(s)) {
        for (const dep of Object.keys(svc.depends_on ?? {})) expect([name, dep, dep in s]).toEqual([name, dep, true]);
      }
    });
  });
});

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const instructions = text.split('\n').filter((l) => /^[A-Z]+ /.test(l));
  const runtime = instructions.slice(instructions.findLastIndex((l) => l.startsWith('FROM ')));

  it('builds in one node:20-bookworm-slim stage and runs in another', () => {
    expect(instructions.filter((l) => l.startsWith('FROM '))).toEqual(['FROM node:20-bookworm-slim AS build', 'FROM node:20-bookworm-slim']);
    expect(text).toMatch(/^RUN npm ci --no-audit --no-fund$/m);
    expect(text).toMatch(/^RUN npm run build && npm run sdk:pack && npm prune --omit=dev/m);
  });

  it('copies what the program reads at run time into the runtime stage', () => {
    const copies = runtime.filter((l) => l.startsWith('COPY --from=build')).join('\n');
    for (const needed of ['/app/package.json', '/app/openapi.yaml', '/app/drizzle', '/app/node_modules', '/app/dist/src', '/app/dist/sdk', '/app/web/dist']) {
      expect(copies).toContain(needed);
    }
  });

  it('runs `herald` as a non-root user, with a health check', () => {
    expect(runtime).toContain('USER node');
    expect(runtime.indexOf('USER node')).toBeGreaterThan(runtime.findLastIndex((l) => l.startsWith('RUN ')));
    expect(text).toContain('ln -s /app/dist/src/cli.js /usr/local/bin/herald');
    expect(runtime).toContain('ENTRYPOINT ["herald"]');
    expect(runtime).toContain('CMD ["serve"]');
    expect(runtime.find((l) => l.startsWith('HEALTHCHECK '))).toMatch(/CMD \["herald", "healthcheck"\]$/);
    expect(runtime).toContain('EXPOSE 8080');
  });

  it('is built from a context without local state or secrets', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist', '.data', '.env', '.env.*', '*.pem']));
  });
});

describe('the licence', () => {
  it('is Apache-2.0, in LICENSE and package.json', () => {
    expect(read('LICENSE')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(read('LICENSE')).toContain('END OF TERMS AND CONDITIONS');
    expect((JSON.parse(read('package.json')) as { license: string }).license).toBe('Apache-2.0');
  });
});
