/**
 * Benchmark: the web UI's weight and how soon the dashboard is usable, beside a limit measured in
 * the same run.
 *
 * 1. Bundle (from web/dist/.vite/manifest.json, so build the UI first: `npm run build:web`): the
 *    bytes the first page load fetches (index.html, the entry script with its static imports, the
 *    CSS), raw and gzip, then the dashboard's own chunk, and every asset in all.
 * 2. Time to interactive on the dashboard: a real Herald (web/tests/support/herald.ts: api,
 *    scheduler and worker as a child process, its own database) and Debian's chromium driven by
 *    Playwright. Each sample opens the dashboard in a new signed-in browser context (a cold
 *    cache: every byte fetched again) and counts from the navigation until the page's heading is
 *    shown and no loader is left. BENCH_LOADS samples (default 15), min/median/max.
 *    The limit, in the same run and the same browser: a bare Express app serving a page of one
 *    small script that fetches the same dashboard JSON bytes Herald answered and writes them into
 *    the page. The ratio is Herald's median over the limit's.
 * Asserts nothing.   npx tsx scripts/bench/web-ui.ts   (`make bench` sets the services' URLs)
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { chromium, type Browser, type Page } from '@playwright/test';
import { ADMIN, startHerald } from '../../web/tests/support/herald.js';
import { freePort, quantile } from './support.js';

const DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));
const LOADS = Number(process.env.BENCH_LOADS ?? 15);
const kb = (n: number) => `${(n / 1024).toFixed(1).padStart(7)} KiB`;

interface ManifestChunk { file: string; imports?: string[]; css?: string[]; isEntry?: boolean; src?: string }

function bundle(): void {
  const manifest = JSON.parse(readFileSync(path.join(DIST, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const size = (file: string) => {
    const bytes = readFileSync(path.join(DIST, file));
    return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  };
  const closure = (key: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const imp of manifest[key]?.imports ?? []) closure(imp, seen);
    return seen;
  };
  const files = (keys: Set<string>) => new Set([...keys].flatMap((k) => [manifest[k]!.file, ...(manifest[k]!.css ?? [])]));
  const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry)!;
  const first = files(closure(entry));
  first.add('index.html');
  const dashKey = Object.keys(manifest).find((k) => k.includes('DashboardPage'));
  const dash = dashKey ? [...files(closure(dashKey))].filter((f) => !first.has(f)) : [];
  const sum = (list: Iterable<string>) => [...list].reduce((a, f) => { const s = size(f); return { raw: a.raw + s.raw, gzip: a.gzip + s.gzip }; }, { raw: 0, gzip: 0 });
  const all = readdirSync(path.join(DIST, 'assets')).map((f) => path.join('assets', f)).filter((f) => statSync(path.join(DIST, f)).isFile());
  const a = sum(first); const d = sum(dash); const t = sum(all);
  console.log('web UI bundle (raw / gzip)');
  console.log(`  first load (index.html, entry, static imports, CSS: ${first.size} files) ${kb(a.raw)} / ${kb(a.gzip)}`);
  console.log(`  + the dashboard's own chunks (${dash.length} files)                    ${kb(d.raw)} / ${kb(d.gzip)}`);
  console.log(`  every asset (${all.length} files, loaded as pages are opened)           ${kb(t.raw)} / ${kb(t.gzip)}`);
}

async function limitServer(json: string): Promise<{ url: string; server: Server }> {
  const app = express();
  app.get('/', (_req, res) => { res.type('html').send('<!doctype html><html lang="en"><title>limit</title><main id="m"></main><script type="module" src="/app.js"></script></html>'); });
  app.get('/app.js', (_req, res) => {
    res.type('js').send("const r = await fetch('/api/v1/dashboard'); const d = await r.json(); const h = document.createElement('h1'); h.textContent = 'Dashboard'; document.getElementById('m').append(h, JSON.stringify(d).length + ' bytes');");
  });
  app.get('/api/v1/dashboard', (_req, res) => { res.type('json').send(json); });
  const port = await freePort();
  const server = await new Promise<Server>((resolve) => { const s = app.listen(port, '127.0.0.1', () => resolve(s)); });
  return { url: `http://127.0.0.1:${port}`, server };
}

async function timeLoad(browser: Browser, url: string, signIn: ((page: Page) => Promise<void>) | undefined): Promise<number> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    if (signIn) await signIn(page);
    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByLabel('Loading…').first().waitFor({ state: 'detached' }).catch(() => undefined);
    return performance.now() - started;
  } finally {
    await context.close();
  }
}

const spread = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return { min: s[0]!, median: quantile(s, 0.5), max: s[s.length - 1]! }; };
const fmt = (x: { min: number; median: number; max: number }) => `${x.min.toFixed(0).padStart(5)} / ${x.median.toFixed(0).padStart(5)} / ${x.max.toFixed(0).padStart(5)} ms`;

async function main(): Promise<void> {
  bundle();
  const herald = await startHerald();
  const browser = await chromium.launch({
    executablePath: process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  let limit: { url: string; server: Server } | undefined;
  try {
    const json = JSON.stringify(await herald.seed.call('getDashboard'));
    limit = await limitServer(json);
    const signIn = async (page: Page) => {
      const res = await page.request.post(`${herald.url}/api/v1/auth/login`, { data: { email: ADMIN.email, password: ADMIN.password } });
      if (res.status() !== 200) throw new Error(`sign-in: ${res.status()}`);
    };
    const h: number[] = []; const l: number[] = [];
    await timeLoad(browser, `${herald.url}/`, signIn); await timeLoad(browser, `${limit.url}/`, undefined); // warm-up
    for (let i = 0; i < LOADS; i += 1) {
      h.push(await timeLoad(browser, `${herald.url}/`, signIn));
      l.push(await timeLoad(browser, `${limit.url}/`, undefined));
    }
    const hs = spread(h); const ls = spread(l);
    console.log(`dashboard time to interactive, cold cache, ${LOADS} loads (min / median / max)`);
    console.log(`  Herald's web UI                                 ${fmt(hs)}`);
    console.log(`  limit: bare Express, one script, same JSON      ${fmt(ls)}`);
    console.log(`  ratio of medians                                ${(hs.median / ls.median).toFixed(2)}x`);
  } finally {
    await browser.close();
    limit?.server.close();
    await herald.stop();
  }
}

await main();
