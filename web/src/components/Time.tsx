/** A moment in the user's time zone and language, with UTC on hover (title) and in dateTime. */
import { useI18n } from '../i18n';

export function formatTime(iso: string, locale: string, timeZone: string, style: 'short' | 'medium' = 'medium'): string {
  return new Intl.DateTimeFormat(locale, { timeZone, dateStyle: style, timeStyle: 'short' }).format(new Date(iso));
}

export function Time({ value, style = 'medium' }: { value: string | null | undefined; style?: 'short' | 'medium' }) {
  const { locale, timeZone, t } = useI18n();
  if (!value) return <span>—</span>;
  const utc = new Date(value).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  return <time dateTime={value} title={t('app.utc', { time: utc })}>{formatTime(value, locale, timeZone, style)}</time>;
}

/** A duration in milliseconds as a person reads it: 850 ms, 2.4 s, 3 min 5 s. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms % 60_000) / 1000)} s`;
}
