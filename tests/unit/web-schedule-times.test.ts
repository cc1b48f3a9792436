/**
 * CronInput's pure part (web/src/components/schedule-times.ts): presets, and the daylight-saving
 * changes between the next runs the service answered.
 */
import { offsetAt, offsetChanges, presetOf, timeZones } from '../../web/src/components/schedule-times.js';

it('knows its presets whatever the spacing, and a cron of one\'s own is none', () => {
  expect(presetOf(' 0 8  * * 1-5 ')?.id).toBe('weekdays');
  expect(presetOf('0 * * * *')?.id).toBe('hourly');
  expect(presetOf('5 8 * * 1-5')).toBeUndefined();
});

it('reads the zone\'s UTC offset at an instant', () => {
  expect(offsetAt('2027-01-15T07:00:00.000Z', 'Europe/Berlin')).toBe('+01:00');
  expect(offsetAt('2027-07-15T06:00:00.000Z', 'Europe/Berlin')).toBe('+02:00');
  expect(offsetAt('2027-07-15T06:00:00.000Z', 'UTC')).toBe('+00:00');
  expect(offsetAt('2027-07-15T06:00:00.000Z', 'Asia/Kolkata')).toBe('+05:30');
});

it('finds where daylight saving changes between consecutive runs, both ways', () => {
  // 08:00 Berlin on the Saturday and Sunday around each change of 2027 (28 March, 31 October).
  const spring = ['2027-03-27T07:00:00.000Z', '2027-03-28T06:00:00.000Z', '2027-03-29T06:00:00.000Z'];
  expect(offsetChanges(spring, 'Europe/Berlin')).toEqual([{ before: spring[0], after: spring[1], from: '+01:00', to: '+02:00' }]);
  const autumn = ['2027-10-30T06:00:00.000Z', '2027-10-31T07:00:00.000Z'];
  expect(offsetChanges(autumn, 'Europe/Berlin')).toEqual([{ before: autumn[0], after: autumn[1], from: '+02:00', to: '+01:00' }]);
  expect(offsetChanges(spring, 'UTC')).toEqual([]);
  expect(offsetChanges(spring, 'Asia/Tokyo')).toEqual([]);
  expect(offsetChanges([], 'Europe/Berlin')).toEqual([]);
});

it('offers the browser\'s zones with UTC and the current one', () => {
  const zones = timeZones('Mars/Olympus');
  expect(zones).toEqual(expect.arrayContaining(['UTC', 'Europe/Berlin', 'America/New_York', 'Mars/Olympus']));
  expect(new Set(zones).size).toBe(zones.length);
});
