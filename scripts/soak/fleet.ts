/**
 * The soak's fleet: `herald api|scheduler|worker` as child processes (`node --import tsx
 * src/cli.ts`), each with a probe listener of its own, its output in a log file of the soak's
 * folder; SIGKILL and start again one of a kind; the resident memory (RSS, from /proc) of every
 * process sampled, one series per process lifetime.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../../tests/support/child-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type Kind = 'api' | 'scheduler' | 'worker';

/** One process lifetime: its RSS samples (ms since the soak's start, bytes). */
export interface Life {
  name: string;
  pid: number;
  startedAt: number;
  endedAt?: number;
  /** How it ended: killed (by the soak's chaos), stopped (SIGTERM at the end), exited (by itself: a fault). */
  end?: 'killed' | 'stopped' | 'exited';
  samples: Array<[number, number]>;
}

interface Member {
  name: string;
  kind: Kind;
  child: ChildProcess;
  probePort: number;
  life: Life;
  killing: boolean;
}

const rssOf = (pid: number): number | undefined => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
};

export interface Fleet {
  apiUrl: string;
  lives: Life[];
  start(kind: Kind, index: number): Promise<void>;
  /** SIGKILL the member, then start it again once `pauseMs` passed; resolves when it is live again. */
  killAndRestart(kind: Kind, index: number, pauseMs: number): Promise<void>;
  /** Processes that exited by themselves (not killed or stopped by the soak). */
  unexpectedExits(): string[];
  stop(): Promise<void>;
}

export async function startFleet(env: Record<string, string>, logDir: string, since: number, sampleMs = 5000): Promise<Fleet> {
  const [apiPort] = await freePorts(1) as [number];
  const members = new Map<string, Member>();
  const lives: Life[] = [];
  const unexpected: string[] = [];
  const sampler = setInterval(() => {
    const t = Date.now() - since;
    for (const m of members.values()) {
      const rss = m.child.pid !== undefined && !m.killing ? rssOf(m.child.pid) : undefined;
      if (rss !== undefined) m.life.samples.push([t, rss]);
    }
  }, sampleMs);

  const live = async (m: Member, seconds = 90) => {
    for (let i = 0; i < seconds * 5; i += 1) {
      if (m.child.exitCode !== null || m.child.signalCode !== null) throw new Error(`${m.name} exited while starting (see ${logDir}/${m.name}.log)`);
      try {
        if ((await fetch(`http://127.0.0.1:${m.probePort}/health/live`)).status === 200) return;
      } catch { /* not yet */ }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${m.name} did not become live (see ${logDir}/${m.name}.log)`);
  };

  const start = async (kind: Kind, index: number) => {
    const name = `${kind}-${index}`;
    const [probePort] = await freePorts(1) as [number];
    const settings: Record<string, string> = { ...env, SVC_PROBE_LISTEN: `127.0.0.1:${probePort}` };
    if (kind === 'api') settings.SVC_LISTEN = `127.0.0.1:${apiPort}`;
    if (process.env.PATH !== undefined) settings.PATH = process.env.PATH;
    if (process.env.HOME !== undefined) settings.HOME = process.env.HOME;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', kind], { cwd: ROOT, env: settings, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = createWriteStream(path.join(logDir, `${name}.log`), { flags: 'a' });
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    const life: Life = { name, pid: child.pid ?? -1, startedAt: Date.now() - since, samples: [] };
    lives.push(life);
    const m: Member = { name, kind, child, probePort, life, killing: false };
    members.set(name, m);
    child.once('exit', (code, signal) => {
      life.endedAt = Date.now() - since;
      if (m.killing) life.end = signal === 'SIGKILL' ? 'killed' : 'stopped';
      else {
        life.end = 'exited';
        unexpected.push(`${name} (pid ${life.pid}) exited by itself: code ${code}, signal ${signal}`);
      }
      log.end();
    });
    await live(m);
  };

  const stopOne = (m: Member, signal: NodeJS.Signals) => new Promise<void>((resolve) => {
    m.killing = true;
    if (m.child.exitCode !== null || m.child.signalCode !== null) { resolve(); return; }
    m.child.once('exit', () => resolve());
    m.child.kill(signal);
  });

  return {
    apiUrl: `http://127.0.0.1:${apiPort}`,
    lives,
    start,
    async killAndRestart(kind, index, pauseMs) {
      const m = members.get(`${kind}-${index}`);
      if (!m) throw new Error(`no ${kind}-${index}`);
      await stopOne(m, 'SIGKILL');
      await new Promise((r) => setTimeout(r, pauseMs));
      await start(kind, index);
    },
    unexpectedExits: () => [...unexpected],
    async stop() {
      clearInterval(sampler);
      await Promise.all([...members.values()].map((m) => stopOne(m, 'SIGTERM')));
    },
  };
}

/**
 * Whether a lifetime's memory is flat: of its samples from `from` on (ms since the soak's start:
 * when the load began), the median RSS of the last quarter against that of the second quarter
 * (the first is warm-up). Lifetimes with fewer such samples than `minSamples` (36: 3 minutes at
 * one sample in 5 s) are too short to say.
 */
export function flatness(life: Life, from = 0, minSamples = 36): { q2: number; q4: number; ratio: number; peak: number } | undefined {
  const s = life.samples.filter(([t]) => t >= from);
  if (s.length < minSamples) return undefined;
  const median = (xs: number[]) => { const v = [...xs].sort((a, b) => a - b); return v[Math.floor(v.length / 2)]!; };
  const n = s.length;
  const q2 = median(s.slice(Math.floor(n / 4), Math.floor(n / 2)).map(([, r]) => r));
  const q4 = median(s.slice(Math.floor((3 * n) / 4)).map(([, r]) => r));
  return { q2, q4, ratio: q4 / q2, peak: Math.max(...s.map(([, r]) => r)) };
}
