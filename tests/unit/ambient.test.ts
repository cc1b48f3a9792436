/**
 * The ambient transaction's storage (src/infra/db/ambient.ts) is enabled only while a frame's work
 * runs: once the last running frame has ended, work it left behind sees no frame at all (on
 * Node 20 an enabled AsyncLocalStorage hooks every promise of the process), while a frame still
 * running keeps its own, and a later frame enables the storage again.
 */
import { activeFrame, currentFrame, inFrame, newFrame, type Frame } from '../../src/infra/db/ambient.js';
import type { Db } from '../../src/infra/db/client.js';

const root = {} as Db;
const frame = (name: string, parent?: Frame): Frame => newFrame(root, {}, { name } as never, { name }, parent);
const nameOf = (f: Frame | undefined) => (f?.repos as { name?: string } | undefined)?.name;

/** A promise that resolves when `open()` is called. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { opened, open };
}

it('disables the storage when the last running frame ends: work left behind sees no frame, not a finished one', async () => {
  const later = gate();
  let leftBehind: Promise<Frame | undefined> | undefined;
  await inFrame(frame('a'), async () => {
    expect(nameOf(currentFrame())).toBe('a');
    // Fire and forget: it reads the frame after the work has returned.
    leftBehind = later.opened.then(() => currentFrame());
  });
  later.open();
  expect(await leftBehind).toBeUndefined();
  expect(currentFrame()).toBeUndefined();
});

it('keeps the storage while another frame still runs, and enables it again for the next frame', async () => {
  const aDone = gate();
  const bMay = gate();
  const seenByB: Array<string | undefined> = [];
  const b = inFrame(frame('b'), async () => {
    await bMay.opened;
    // a has ended meanwhile: b still sees its own frame.
    seenByB.push(nameOf(currentFrame()), nameOf(activeFrame(() => true)));
  });
  await inFrame(frame('a'), async () => { aDone.open(); });
  await aDone.opened;
  bMay.open();
  await b;
  expect(seenByB).toEqual(['b', 'b']);
  await inFrame(frame('c'), async () => {
    await new Promise((resolve) => setImmediate(resolve));
    expect(nameOf(currentFrame())).toBe('c');
  });
  expect(currentFrame()).toBeUndefined();
});

it('a nested frame ending leaves its parent\'s storage enabled', async () => {
  await inFrame(frame('outer'), async () => {
    const outer = currentFrame()!;
    await inFrame(frame('inner', outer), async () => {
      expect(nameOf(currentFrame())).toBe('inner');
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(nameOf(activeFrame(() => true))).toBe('outer');
  });
});
