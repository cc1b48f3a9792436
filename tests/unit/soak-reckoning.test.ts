/**
 * The soak's pure reckoning (scripts/soak): which minute slots were due, and when a process's
 * memory counts as flat.
 */
import { minuteSlots } from '../../scripts/soak/reconcile.js';
import { flatness, type Life } from '../../scripts/soak/fleet.js';

const at = (iso: string) => new Date(iso);

describe('minuteSlots', () => {
  it('answers the minutes strictly after the report was made, up to and including the end', () => {
    expect(minuteSlots(at('2026-11-29T08:00:30Z'), at('2026-11-29T08:03:00Z')).map((t) => new Date(t).toISOString()))
      .toEqual(['2026-11-29T08:01:00.000Z', '2026-11-29T08:02:00.000Z', '2026-11-29T08:03:00.000Z']);
    // Made exactly on a minute: that minute is not due (the first run is the next one).
    expect(minuteSlots(at('2026-11-29T08:00:00Z'), at('2026-11-29T08:01:59Z'))).toEqual([Date.parse('2026-11-29T08:01:00Z')]);
    expect(minuteSlots(at('2026-11-29T08:00:10Z'), at('2026-11-29T08:00:50Z'))).toEqual([]);
  });
});

describe('flatness', () => {
  const life = (rss: number[]): Life => ({ name: 'worker-1', pid: 1, startedAt: 0, samples: rss.map((r, i) => [i * 5000, r * 2 ** 20]) });

  it('compares the median of the last quarter with that of the second (the first is warm-up)', () => {
    const warmThenFlat = life([100, 150, 200, 250, ...Array.from({ length: 12 }, () => 260)]);
    expect(flatness(warmThenFlat, 0, 16)).toMatchObject({ ratio: 1, peak: 260 * 2 ** 20 });
    const growing = life(Array.from({ length: 20 }, (_, i) => 200 + i * 10));
    const m = flatness(growing, 0, 16)!;
    expect(m.q2).toBe(270 * 2 ** 20);
    expect(m.q4).toBe(370 * 2 ** 20);
    expect(m.ratio).toBeGreaterThan(1.2);
  });

  it('does not judge a lifetime with too few samples under load (3 minutes at one in 5 s by default)', () => {
    expect(flatness(life([100, 500, 900]))).toBeUndefined();
    expect(flatness(life(Array.from({ length: 35 }, () => 100)))).toBeUndefined();
    expect(flatness(life(Array.from({ length: 36 }, () => 100)))).toMatchObject({ ratio: 1 });
  });

  it('leaves out what came before the load (start-up, an idle process)', () => {
    const idleThenBusy = life([...Array.from({ length: 30 }, () => 150), ...Array.from({ length: 36 }, () => 280)]);
    expect(flatness(idleThenBusy, 0)!.ratio).toBeGreaterThan(1.2);
    expect(flatness(idleThenBusy, 30 * 5000)).toMatchObject({ ratio: 1 });
  });
});
