/** Polls `check` until it gives something truthy, which it answers; past `ms`, throws naming `what`. */
export async function until<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, what: string, ms = 10_000, every = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
