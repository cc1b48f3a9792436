/**
 * Schedule arithmetic across DST changes, with exact UTC instants (the rule: a time in a gap
 * runs once at the first valid minute after it; a repeated time runs once, at its first
 * occurrence). Berlin: 2026-03-29 02:00 CET → 03:00 CEST (01:00Z), 2026-10-25 03:00 CEST → 02:00
 * CET (01:00Z). New York: 2026-03-08 02:00 EST → 03:00 EDT (07:00Z), 2026-11-01 02:00 EDT →
 * 01:00 EST (06:00Z).
 */
import { nextOccurrences } from '../../src/domain/schedules/schedule.js';

const next = (cron: string, timezone: string, from: string, count: number) =>
  nextOccurrences({ cron, timezone }, new Date(from), count).map((d) => d.toISOString());
const utc = (...times: string[]) => times.map((t) => `${t}:00.000Z`);

describe('Europe/Berlin, spring forward (2026-03-29, 02:00-02:59 does not exist)', () => {
  const z = 'Europe/Berlin';

  it('runs a daily 02:30 once at 03:00 CEST on the day of the gap', () => {
    expect(next('30 2 * * *', z, '2026-03-27T12:00:00Z', 4))
      .toEqual(utc('2026-03-28T01:30', '2026-03-29T01:00', '2026-03-30T00:30', '2026-03-31T00:30'));
  });

  it('runs an hourly job on every hour that exists, 02:00 folding into 03:00', () => {
    expect(next('0 * * * *', z, '2026-03-28T23:30:00Z', 4))
      .toEqual(utc('2026-03-29T00:00', '2026-03-29T01:00', '2026-03-29T02:00', '2026-03-29T03:00'));
  });

  it('runs an hourly job at :30 once at 03:00 for the missing 02:30 (croner alone skips it)', () => {
    expect(next('30 * * * *', z, '2026-03-28T23:30:00Z', 4))
      .toEqual(utc('2026-03-29T00:30', '2026-03-29T01:00', '2026-03-29T01:30', '2026-03-29T02:30'));
  });

  it('runs a listed 02:30 at 03:00 too (croner alone counts a list as an interval and skips it)', () => {
    expect(next('30 2,14 * * *', z, '2026-03-28T12:00:00Z', 3)).toEqual(utc('2026-03-28T13:30', '2026-03-29T01:00', '2026-03-29T12:30'));
  });

  it('runs every 15 minutes straight from 01:45 CET to 03:00 CEST, once', () => {
    expect(next('*/15 * * * *', z, '2026-03-29T00:30:00Z', 4))
      .toEqual(utc('2026-03-29T00:45', '2026-03-29T01:00', '2026-03-29T01:15', '2026-03-29T01:30'));
  });

  it('runs an every-minute job once for the whole gap', () => {
    expect(next('* * * * *', z, '2026-03-29T00:58:00Z', 3)).toEqual(utc('2026-03-29T00:59', '2026-03-29T01:00', '2026-03-29T01:01'));
  });
});

describe('Europe/Berlin, fall back (2026-10-25, 02:00-02:59 occurs twice)', () => {
  const z = 'Europe/Berlin';

  it('runs a daily 02:30 once, at its first occurrence (CEST)', () => {
    expect(next('30 2 * * *', z, '2026-10-24T12:00:00Z', 2)).toEqual(utc('2026-10-25T00:30', '2026-10-26T01:30'));
  });

  it('does not run a daily 02:30 again in the second pass of the hour', () => {
    expect(next('30 2 * * *', z, '2026-10-25T00:45:00Z', 1)).toEqual(utc('2026-10-26T01:30'));
  });

  it('runs an hourly job once at 02:00, then at 03:00 CET', () => {
    expect(next('0 * * * *', z, '2026-10-24T22:30:00Z', 4))
      .toEqual(utc('2026-10-24T23:00', '2026-10-25T00:00', '2026-10-25T02:00', '2026-10-25T03:00'));
  });

  it('runs every 15 minutes through the first pass only', () => {
    expect(next('*/15 * * * *', z, '2026-10-24T23:30:00Z', 8)).toEqual(utc(
      '2026-10-24T23:45', '2026-10-25T00:00', '2026-10-25T00:15', '2026-10-25T00:30', '2026-10-25T00:45',
      '2026-10-25T02:00', '2026-10-25T02:15', '2026-10-25T02:30',
    ));
  });

  it('answers from inside the second pass with 03:00 CET, nothing earlier', () => {
    expect(next('*/15 * * * *', z, '2026-10-25T01:10:00Z', 2)).toEqual(utc('2026-10-25T02:00', '2026-10-25T02:15'));
  });
});

describe('America/New_York, spring forward (2026-03-08, 02:00-02:59 does not exist)', () => {
  const z = 'America/New_York';

  it('runs a daily 02:30 once at 03:00 EDT', () => {
    expect(next('30 2 * * *', z, '2026-03-07T12:00:00Z', 2)).toEqual(utc('2026-03-08T07:00', '2026-03-09T06:30'));
  });

  it('runs an hourly job from 01:00 EST straight to 03:00 EDT', () => {
    expect(next('0 * * * *', z, '2026-03-08T05:30:00Z', 3)).toEqual(utc('2026-03-08T06:00', '2026-03-08T07:00', '2026-03-08T08:00'));
  });

  it('runs every 15 minutes from 01:45 EST to 03:00 EDT', () => {
    expect(next('*/15 * * * *', z, '2026-03-08T06:30:00Z', 3)).toEqual(utc('2026-03-08T06:45', '2026-03-08T07:00', '2026-03-08T07:15'));
  });
});

describe('America/New_York, fall back (2026-11-01, 01:00-01:59 occurs twice)', () => {
  const z = 'America/New_York';

  it('runs a daily 01:30 once, at 01:30 EDT', () => {
    expect(next('30 1 * * *', z, '2026-10-31T12:00:00Z', 2)).toEqual(utc('2026-11-01T05:30', '2026-11-02T06:30'));
  });

  it('runs a daily 02:30 at 02:30 EST (not ambiguous)', () => {
    expect(next('30 2 * * *', z, '2026-10-31T12:00:00Z', 2)).toEqual(utc('2026-11-01T07:30', '2026-11-02T07:30'));
  });

  it('runs an hourly job once at 01:00, then at 02:00 EST', () => {
    expect(next('0 * * * *', z, '2026-11-01T03:30:00Z', 4))
      .toEqual(utc('2026-11-01T04:00', '2026-11-01T05:00', '2026-11-01T07:00', '2026-11-01T08:00'));
  });

  it('runs every 15 minutes through the first pass only', () => {
    expect(next('*/15 * * * *', z, '2026-11-01T05:30:00Z', 3)).toEqual(utc('2026-11-01T05:45', '2026-11-01T07:00', '2026-11-01T07:15'));
  });
});

describe('zones with offsets in half and quarter hours', () => {
  it('keeps Asia/Kathmandu at +05:45', () => {
    expect(next('0 9 * * *', 'Asia/Kathmandu', '2026-01-01T00:00:00Z', 2)).toEqual(utc('2026-01-01T03:15', '2026-01-02T03:15'));
    expect(next('0 * * * *', 'Asia/Kathmandu', '2026-01-01T00:00:00Z', 2)).toEqual(utc('2026-01-01T00:15', '2026-01-01T01:15'));
  });

  it('handles Australia/Lord_Howe, whose clocks move by 30 minutes', () => {
    // 2026-04-05 02:00 (+11) → 01:30 (+10:30): 01:45 occurs twice and runs at the first.
    expect(next('45 1 * * *', 'Australia/Lord_Howe', '2026-04-04T00:00:00Z', 2)).toEqual(utc('2026-04-04T14:45', '2026-04-05T15:15'));
    // 2026-10-04 02:00 (+10:30) → 02:30 (+11): 02:15 does not exist and runs at 02:30.
    expect(next('15 2 * * *', 'Australia/Lord_Howe', '2026-10-02T00:00:00Z', 3))
      .toEqual(utc('2026-10-02T15:45', '2026-10-03T15:30', '2026-10-04T15:15'));
  });
});
