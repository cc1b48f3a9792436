/**
 * libfaketime (Debian's package faketime; `make test` installs it as root): the environment that
 * makes a child process's wall clock run at an offset, as on a machine whose clock is wrong.
 * The monotonic clock is left alone (timers and performance.now() stay true).
 */
import { existsSync, readdirSync } from 'node:fs';

export function faketimeLibrary(): string {
  const dirs = ['/usr/lib', ...readdirSync('/usr/lib').map((d) => `/usr/lib/${d}`)];
  const found = dirs.map((d) => `${d}/faketime/libfaketime.so.1`).filter((f) => existsSync(f));
  if (!found[0]) throw new Error('libfaketime is not installed: this test runs a process whose clock is wrong (make test installs it through scripts/ensure-services.sh when run as root; otherwise apt-get install faketime)');
  return found[0];
}

/** Settings for `herald(...)` that put the child's clock `seconds` ahead (negative: behind). */
export function clockOffsetEnv(seconds: number): Record<string, string> {
  return {
    LD_PRELOAD: faketimeLibrary(),
    FAKETIME: `${seconds >= 0 ? '+' : ''}${seconds}s`,
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
    FAKETIME_DONT_RESET: '1',
  };
}
