/**
 * The pure part of CronInput: the presets it offers, the time zones to choose from, and where the
 * UTC offset of the schedule's zone changes between the next runs POST /schedules/preview
 * answered (a daylight-saving change: the runs keep their wall-clock time, so their UTC time
 * moves). The service computes the times; this only reads them. No imports, for unit tests.
 */

export interface CronPreset {
  /** i18n key of the preset's name. */
  id: string;
  cron: string;
}

export const CRON_PRESETS: CronPreset[] = [
  { id: 'hourly', cron: '0 * * * *' },
  { id: 'daily', cron: '0 8 * * *' },
  { id: 'weekdays', cron: '0 8 * * 1-5' },
  { id: 'weekly', cron: '0 8 * * 1' },
  { id: 'monthly', cron: '0 8 1 * *' },
];

/** The preset a cron is (spaces normalised), or undefined for a cron of one's own. */
export function presetOf(cron: string): CronPreset | undefined {
  const normal = cron.trim().split(/\s+/).join(' ');
  return CRON_PRESETS.find((p) => p.cron === normal);
}

/** The zone's UTC offset at an instant, as "+01:00" ("+00:00" for UTC). */
export function offsetAt(iso: string, timeZone: string): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(iso)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-]\d{2}:\d{2})/.exec(part);
  return m ? m[1]! : '+00:00';
}

export interface OffsetChange {
  /** The last run before the change and the first after it. */
  before: string;
  after: string;
  from: string;
  to: string;
}

/** Each place where the zone's UTC offset differs between two consecutive runs. */
export function offsetChanges(times: string[], timeZone: string): OffsetChange[] {
  const out: OffsetChange[] = [];
  for (let i = 1; i < times.length; i += 1) {
    const from = offsetAt(times[i - 1]!, timeZone);
    const to = offsetAt(times[i]!, timeZone);
    if (from !== to) out.push({ before: times[i - 1]!, after: times[i]!, from, to });
  }
  return out;
}

/** The IANA zones the browser knows, with UTC, and `current` even when the browser does not list it. */
export function timeZones(current?: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const all = new Set(['UTC', ...known]);
  if (current) all.add(current);
  return [...all];
}
