/**
 * Jest's node environment, plus a probe once per worker process: when Jest asks the worker to end,
 * it must exit by itself within 500 ms (no timer, socket, server or child left holding it), or
 * Jest kills it and prints "A worker process has failed to exit gracefully…" without naming
 * anything. The probe then prints, on the worker's stderr, what still holds it (each handle's
 * kind with its address, pid or timer), so that the warning names its cause.
 */
import { setTimeout } from 'node:timers';
import { TestEnvironment } from 'jest-environment-node';

/** jest-worker's message to a worker to end (CHILD_MESSAGE_END). */
const END = 2;
/** The files this worker ran, the latest last (a leak is most often the last file's). */
const ran = [];

function describeHandle(h) {
  const kind = h && h.constructor ? h.constructor.name : typeof h;
  if (kind === 'Socket' || kind === 'TLSSocket') {
    if (h.destroyed) return null;
    return `${kind} ${h.localAddress ?? ''}:${h.localPort ?? ''} -> ${h.remoteAddress ?? '(pipe)'}:${h.remotePort ?? ''}${h._handle && h._handle.hasRef && !h._handle.hasRef() ? ' (unref)' : ''}`;
  }
  if (kind === 'Server') {
    const a = h.address && h.address();
    return `Server ${a && typeof a === 'object' ? `${a.address}:${a.port}` : a}`;
  }
  if (kind === 'ChildProcess') return `ChildProcess pid ${h.pid} ${h.spawnfile} ${(h.spawnargs || []).slice(1, 4).join(' ')}`;
  if (kind === 'Timeout') {
    if (h.hasRef && !h.hasRef()) return null;
    const fn = h._onTimeout;
    const source = fn ? String(fn).replace(/\s+/g, ' ').slice(0, 160) : '';
    return `Timeout ${h._idleTimeout} ms${h._repeat ? ' (interval)' : ''} ${fn && fn.name ? fn.name : ''} ${source}`;
  }
  return kind;
}

if (!process.heraldExitProbe && typeof process.send === 'function') {
  process.heraldExitProbe = true;
  let told = false;
  /** What still holds the worker, on its stderr (once). */
  const tell = (when) => {
    if (told) return;
    told = true;
    const stdio = new Set([process.stdin, process.stdout, process.stderr]);
    const held = process._getActiveHandles().filter((h) => !stdio.has(h)).map(describeHandle).filter((d) => d !== null);
    // Timers are not handles in Node 20: counted by kind from the active resources.
    const counts = {};
    for (const r of process.getActiveResourcesInfo()) if (r !== 'PipeWrap' && r !== 'TTYWrap') counts[r] = (counts[r] ?? 0) + 1;
    const resources = Object.entries(counts).map(([k, n]) => `${k} x${n}`).join(', ');
    process.stderr.write(`[jest worker ${process.pid}] still held ${when} after Jest asked it to end, by:\n${held.map((d) => `  ${d}`).join('\n')}\n`
      + `  active resources: ${resources || 'none'}\n  its last files: ${ran.slice(-3).join(', ')}\n`);
  };
  const onMessage = (message) => {
    if (!Array.isArray(message) || message[0] !== END) return;
    // Its own listener would hold the worker's channel open: gone before the worker is to exit.
    process.removeListener('message', onMessage);
    // Jest kills a worker still running 500 ms after its message (SIGTERM): told at 200 ms, or
    // at the kill on a machine so loaded that the timer comes late (a signal listener holds nothing).
    setTimeout(() => tell('200 ms'), 200).unref();
    process.once('SIGTERM', () => { tell('until Jest killed it'); process.exit(143); });
  };
  process.on('message', onMessage);
}

export default class ExitProbeEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    ran.push(String(context.testPath).replace(/^.*\/tests\//, 'tests/'));
    if (ran.length > 10) ran.shift();
  }
}

