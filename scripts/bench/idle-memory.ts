/**
 * Benchmark: the resident memory of an idle API process (issue 29, P4: "an idle API process
 * <= 100 MiB"), against its limit in the same run: a bare Express app (same Node, same port
 * setup). Each is its own child process; its VmRSS is read from /proc two seconds after it
 * listens, and again after 200 requests (for Herald: /health/live, the reports list with an API
 * key, /openapi.json and a 404, 50 each; for the limit: 200 GETs of a small body), two seconds
 * after the last. Herald runs built (dist/, `npm run build`), as deployed; without dist/ the
 * bench says so and stops (tsx's compiler alone adds ~130 MiB). Variants of Herald's node:
 * as shipped; with SVC_HEAP_SETTLE=false (V8's defaults: the young generation grows to 32 MiB
 * during start-up and keeps it, the old generation keeps its start-up pages; see
 * src/main/start-heap.ts); and with NODE_OPTIONS=--max-semi-space-size=2 (a young generation
 * that never grows). BENCH_ROUNDS (default 3)
 * rounds, min / median / max. Asserts nothing.
 *   npx tsx scripts/bench/idle-memory.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { adminOf, benchPlace, freePort, sleep, spread, stopChildren } from './support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MiB = 1048576;
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024 / MiB;

const LIMIT = `
const express = require('express');
const app = express();
app.get('/health/live', (_req, res) => res.json({ status: 'ok' }));
app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));`;

function started(child: ChildProcess, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (b: Buffer) => { seen += b.toString('utf8'); if (seen.includes(word)) { seen = ''; resolve(); } if (seen.length > 1e5) seen = seen.slice(-1000); });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before it listened`)));
  });
}

async function measure(child: ChildProcess, requests: () => Promise<void>): Promise<{ idle: number; used: number }> {
  await sleep(2000);
  const idle = rssOf(child.pid!);
  await requests();
  await sleep(2000);
  return { idle, used: rssOf(child.pid!) };
}

async function main(): Promise<void> {
  if (!existsSync(`${ROOT}dist/src/cli.js`)) {
    console.log('idle memory: no dist/ (run `npm run build` first); Herald is measured built, as deployed');
    return;
  }
  const place = await benchPlace();
  const children: ChildProcess[] = [];
  const figures: Record<string, { idle: number[]; used: number[] }> = {};
  const note = (name: string, m: { idle: number; used: number }) => {
    figures[name] ??= { idle: [], used: [] };
    figures[name].idle.push(m.idle); figures[name].used.push(m.used);
  };
  try {
    // A first admin and an API key, made once through a Herald of its own that is not measured
    // (the set-up's work would count in the first measured one).
    let key = '';
    {
      const port = await freePort();
      const first = spawn(process.execPath, ['dist/src/cli.js', 'api'], {
        cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...place.env, PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'info', SVC_LISTEN: `127.0.0.1:${port}` },
      });
      children.push(first);
      await started(first, 'api listening');
      const admin = await adminOf(`http://127.0.0.1:${port}`, place);
      key = (await admin.post('/api/v1/api-keys', { name: 'bench', scope: 'read' })).token!;
      await stopChildren([first]);
    }
    for (let round = 1; round <= ROUNDS; round += 1) {
      {
        const port = await freePort();
        const limit = spawn(process.execPath, ['-e', LIMIT], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
        children.push(limit);
        await started(limit, 'listening');
        note('bare Express', await measure(limit, async () => {
          for (let i = 0; i < 200; i += 1) await (await fetch(`http://127.0.0.1:${port}/health/live`)).arrayBuffer();
        }));
        await stopChildren([limit]);
      }
      for (const [name, nodeOptions, settle] of [
        ['Herald api', '', 'true'], ['Herald api, SVC_HEAP_SETTLE=false', '', 'false'], ['Herald api, --max-semi-space-size=2', '--max-semi-space-size=2', 'true'],
      ] as const) {
        const port = await freePort();
        const url = `http://127.0.0.1:${port}`;
        const api = spawn(process.execPath, ['dist/src/cli.js', 'api'], {
          cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...place.env, PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'info', SVC_LISTEN: `127.0.0.1:${port}`, NODE_OPTIONS: nodeOptions, SVC_HEAP_SETTLE: settle },
        });
        children.push(api);
        await started(api, 'api listening');
        note(name, await measure(api, async () => {
          for (let i = 0; i < 50; i += 1) {
            for (const [path, headers] of [['/health/live', {}], ['/api/v1/reports?limit=50', { Authorization: `Bearer ${key}` }], ['/openapi.json', {}], ['/api/v1/nothing-here', {}]] as const) {
              await (await fetch(`${url}${path}`, { headers })).arrayBuffer();
            }
          }
        }));
        await stopChildren([api]);
      }
      console.log(`round ${round}: ${Object.entries(figures).map(([n, f]) => `${n} ${f.idle.at(-1)!.toFixed(0)} MiB idle, ${f.used.at(-1)!.toFixed(0)} after 200 requests`).join('; ')}`);
    }
    const limit = figures['bare Express']!;
    console.log(`\nidle resident memory, ${ROUNDS} rounds (MiB):`);
    for (const [name, f] of Object.entries(figures)) {
      const over = f.idle.map((x, i) => x - limit.idle[i]!);
      console.log(`  ${name.padEnd(38)} idle ${spread(f.idle, 0)}; after 200 requests ${spread(f.used, 0)}${name === 'bare Express' ? '' : `; idle over bare Express ${spread(over, 0)}`}`);
    }
  } finally {
    await stopChildren(children);
    await place.release();
  }
}

await main();
