/**
 * The heap a long-running process keeps after start-up (issue 29, P4: an idle API process
 * <= 100 MiB). Loading the code, the contract and the validators allocates a lot that survives,
 * so V8 grows the young generation to its largest (two semi-spaces of 16 MiB) during start-up and
 * keeps it, nearly empty, for good; and the old generation is left with pages half free.
 *
 * - `holdYoungGenerationSmall()`, by the CLI's entry before it loads the rest: the young
 *   generation does not grow while the process starts (its growth factor is 1 until then; V8
 *   reads the flag each time it would grow).
 * - `settleHeap()` once the roles run: two full collections, which leave the old generation
 *   compacted, then V8's own growth factor (2) again, so that under load the young generation
 *   grows as V8 sees fit. The collections take ~40 ms, once.
 *
 * Measured with scripts/bench/idle-memory.ts: see the README. Off with SVC_HEAP_SETTLE=false
 * (read straight from the environment: the settings are not loaded yet when this runs).
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** Off by the setting, or when the operator sizes the young generation through node's own flags. */
const enabled = process.env.SVC_HEAP_SETTLE !== 'false'
  && !/semi-space/.test(`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`);
let holding = false;
/** V8's default: the young generation doubles when it grows. */
const V8_GROWTH_FACTOR = 2;

export function holdYoungGenerationSmall(): void {
  if (!enabled) return;
  v8.setFlagsFromString('--semi-space-growth-factor=1');
  holding = true;
}

/**
 * Two full collections, then the young generation may grow again; at most once per process, and
 * only where it was held. Best effort: a node where `gc` cannot be had this way only skips the
 * collections (`onSkipped` says why); the growth factor goes back to V8's in any case.
 */
let settled = false;
export function settleHeap(onSkipped: (reason: string) => void = () => undefined): void {
  if (!holding || settled) return;
  settled = true;
  try {
    // `gc` of a fresh context once --expose-gc is set (what the expose-gc package does): a
    // collection on demand without starting node with the flag; the flag is unset again at once.
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('typeof gc === "function" ? gc : undefined');
    v8.setFlagsFromString('--no-expose-gc');
    if (typeof gc !== 'function') { onSkipped('this node does not expose gc on demand'); return; }
    gc();
    gc();
  } catch (err) {
    onSkipped((err as Error).message);
  } finally {
    v8.setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
  }
}
