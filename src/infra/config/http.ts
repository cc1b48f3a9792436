/** The HTTP listeners and what the API believes of the requests it gets. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../paths.js';
import { checkUrl, commaList, hostPort, integer, isAddressOrCidr, setting, type HostPort } from './schema.js';

/** Where `make build` puts the web UI (web/dist); served when it holds an index.html. */
const BUILT_WEB = path.join(packageRoot, 'web', 'dist');

const listen = setting({
  env: 'SVC_LISTEN',
  description: 'host:port of the API\'s HTTP listener',
  default: '127.0.0.1:8080',
  parse: (v, ctx) => hostPort(ctx, v ?? '127.0.0.1:8080'),
});

const probeListen = setting({
  env: 'SVC_PROBE_LISTEN',
  description: 'host:port of a second listener serving only /health/* and /metrics, in any process',
  default: 'unset: none',
  parse: (v, ctx): HostPort | undefined => (v === undefined ? undefined : hostPort(ctx, v)),
});

export const httpSettings = {
  listen,
  /** SVC_API_PROCESSES: API processes sharing SVC_LISTEN (node:cluster); 1 serves in the process itself. */
  apiProcesses: integer('SVC_API_PROCESSES', { fallback: 1, min: 1, max: 64 },
    'API processes `herald serve`/`herald api` starts on SVC_LISTEN (one per core the host gives it): a primary process shares the address among them, runs the other roles itself and restarts one that exits'),
  /** SVC_PROBE_LISTEN: a second listener for /health/* and /metrics only, in any process. */
  probeListen,
  /** SVC_ANSWER_CACHE_MB: read answers each API process keeps by their ETags (src/handlers/answer-cache.ts); 0: none. */
  answerCacheMiB: integer('SVC_ANSWER_CACHE_MB', { fallback: 16, min: 0, max: 4096 },
    'MiB of read answers (lists and single resources, by their ETags from the store\'s row versions) each API process keeps and sends again while the rows are unchanged; 0 keeps none'),
  publicUrl: setting({
    env: 'SVC_PUBLIC_URL',
    description: 'the base address users and links see',
    default: 'http:// + SVC_LISTEN',
    parse(v, ctx) {
      const l = ctx.valueOf(listen);
      const fallback = `http://${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`;
      return checkUrl(ctx, v ?? fallback, ['http:', 'https:']).replace(/\/+$/, '');
    },
  }),
  /** Proxies whose X-Forwarded-For is believed (express "trust proxy"); false: none. */
  trustProxy: setting({
    env: 'SVC_TRUST_PROXY',
    description: 'proxies whose X-Forwarded-For names the client: addresses, CIDRs, loopback, linklocal, uniquelocal, or none',
    default: 'loopback',
    parse(v, ctx): string[] | false {
      const value = v ?? 'loopback';
      if (value === 'none') return false;
      const items = commaList(value);
      for (const item of items) {
        const named = ['loopback', 'linklocal', 'uniquelocal'].includes(item);
        if (!named && !isAddressOrCidr(item)) {
          ctx.fail(`"${item}" is not an address, a CIDR, loopback, linklocal, uniquelocal or none`);
        }
      }
      return items;
    },
  }),
  /** SVC_CORS_ORIGINS: exact origins whose pages may call the API; empty: CORS off. */
  corsOrigins: setting({
    env: 'SVC_CORS_ORIGINS',
    description: 'comma list of exact browser origins (scheme://host[:port]) allowed to call the API from another site',
    default: 'empty: none',
    parse(v, ctx): string[] {
      const items = commaList(v);
      for (const item of items) {
        let origin: string | undefined;
        try {
          const u = new URL(item);
          if (u.protocol === 'http:' || u.protocol === 'https:') origin = u.origin;
        } catch {
          origin = undefined;
        }
        if (origin !== item) ctx.fail(`"${item}" is not an origin (scheme://host[:port], no path), e.g. https://app.example.com`);
      }
      return [...new Set(items)];
    },
  }),
  /** SVC_WEB_DIR: the built web UI the api role serves at `/`; undefined: the static pages instead. */
  webDir: setting({
    env: 'SVC_WEB_DIR',
    description: 'folder of the built web UI served at / (none: no UI, static pages only)',
    default: 'web/dist of the installation, when built',
    parse(v, ctx): string | undefined {
      if (v === 'none') return undefined;
      if (v === undefined) return existsSync(path.join(BUILT_WEB, 'index.html')) ? BUILT_WEB : undefined;
      const dir = path.resolve(ctx.cwd, v);
      if (!existsSync(path.join(dir, 'index.html'))) ctx.fail(`${dir} holds no index.html (build the UI with \`make build\`, or set none)`);
      return dir;
    },
  }),
  metricsToken: setting({
    env: 'SVC_METRICS_TOKEN',
    description: 'bearer token /metrics then requires (16+ characters)',
    default: 'unset: public',
    parse(v, ctx) {
      if (v !== undefined && v.length < 16) ctx.fail('must be at least 16 characters');
      return v;
    },
  }),
};

/** The two listener rows, for `herald healthcheck`, which reads nothing else. */
export const listenerSettings = { listen, probeListen };
