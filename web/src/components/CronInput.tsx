/**
 * A schedule: a preset or a cron of one's own, in a time zone, with what it means in words
 * (cronstrue, in the user's language), the next five runs and a note where daylight saving moves
 * them, both from POST /schedules/preview (the service computes the times and says what is
 * wrong with a cron or a zone; this only shows it).
 */
import { Alert, Group, List, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import cronstrue from 'cronstrue';
import 'cronstrue/locales/de';
import { useId, useMemo } from 'react';
import { api, HeraldError } from '../api/client';
import { useI18n } from '../i18n';
import { problemMessage } from './ProblemAlert';
import { CRON_PRESETS, offsetChanges, presetOf, timeZones } from './schedule-times';

export interface Schedule { cron: string; timezone: string }

export interface CronInputProps {
  value: Schedule;
  onChange: (value: Schedule) => void;
  /** Errors from saving, by field (`cron`, `timezone`), shown over the preview's. */
  errors?: { cron?: string | undefined; timezone?: string | undefined };
  disabled?: boolean;
}

const CUSTOM = 'custom';

/** The cron in words in the user's language, or undefined where cronstrue cannot read it. */
function describe(cron: string, language: string): string | undefined {
  try {
    return cronstrue.toString(cron, { locale: language, use24HourTimeFormat: true, verbose: false, throwExceptionOnParseError: true, dayOfWeekStartIndexZero: true });
  } catch {
    return undefined;
  }
}

function useSchedulePreview(schedule: Schedule) {
  const [debounced] = useDebouncedValue(schedule, 300);
  const ready = debounced.cron.trim() !== '' && debounced.timezone.trim() !== '';
  return useQuery({
    queryKey: ['schedules', 'preview', debounced.cron.trim(), debounced.timezone],
    queryFn: () => api.call('previewSchedule', { body: { cron: debounced.cron.trim(), timezone: debounced.timezone, count: 5 } }),
    enabled: ready,
    retry: false,
    staleTime: 60_000,
    placeholderData: keepPreviousData,
  });
}

export function CronInput({ value, onChange, errors = {}, disabled = false }: CronInputProps) {
  const { t, language, locale, timeZone: userZone } = useI18n();
  const preview = useSchedulePreview(value);
  const zones = useMemo(() => timeZones(value.timezone), [value.timezone]);
  const preset = presetOf(value.cron)?.id ?? CUSTOM;
  const nextId = useId();

  const problem = preview.error instanceof HeraldError ? preview.error : undefined;
  const fieldProblem = (name: string) => problem?.errors.find((e) => e.field === name)?.message;
  const cronError = errors.cron ?? fieldProblem('cron') ?? (problem && problem.errors.length === 0 ? problemMessage(problem, t) : undefined);
  const zoneError = errors.timezone ?? fieldProblem('timezone');
  const valid = !preview.isError && preview.data !== undefined;
  const words = valid ? describe(value.cron.trim(), language) ?? preview.data.description : undefined;
  const next = valid ? preview.data.next : [];
  const changes = offsetChanges(next, value.timezone);

  const inZone = new Intl.DateTimeFormat(locale, {
    timeZone: value.timezone && zones.includes(value.timezone) ? value.timezone : 'UTC',
    weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'shortOffset',
  });
  const inUserZone = new Intl.DateTimeFormat(locale, { timeZone: userZone, dateStyle: 'medium', timeStyle: 'short' });

  return (
    <Stack gap="sm">
      <Group grow align="flex-start" wrap="wrap">
        <Select label={t('cronInput.preset')} disabled={disabled} allowDeselect={false}
          data={[...CRON_PRESETS.map((p) => ({ value: p.id, label: t(`cronInput.presets.${p.id}`) })), { value: CUSTOM, label: t('cronInput.presets.custom') }]}
          value={preset} onChange={(id) => {
            const p = CRON_PRESETS.find((x) => x.id === id);
            if (p) onChange({ ...value, cron: p.cron });
          }} />
        <TextInput label={t('cronInput.cron')} description={t('cronInput.cronHelp')} disabled={disabled} error={cronError}
          value={value.cron} onChange={(e) => onChange({ ...value, cron: e.currentTarget.value })}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
        <Select label={t('cronInput.timezone')} disabled={disabled} searchable data={zones} limit={200} error={zoneError}
          value={value.timezone} onChange={(z) => { if (z) onChange({ ...value, timezone: z }); }} allowDeselect={false}
          nothingFoundMessage={t('cronInput.noZone')} />
      </Group>
      {words && <Text size="sm" fw={500} aria-live="polite">{words} ({value.timezone})</Text>}
      {valid && (
        <div>
          <Text size="sm" fw={600} id={nextId}>{t('cronInput.nextRuns')}</Text>
          {next.length === 0 ? <Text size="sm">{t('cronInput.noNextRuns')}</Text> : (
            <List size="sm" aria-labelledby={nextId}>
              {next.map((iso) => (
                <List.Item key={iso}>
                  <time dateTime={iso} title={t('app.utc', { time: iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC') })}>{inZone.format(new Date(iso))}</time>
                  {userZone !== value.timezone && (
                    <Text span size="xs" c="dimmed"> · {t('cronInput.yourTime', { time: inUserZone.format(new Date(iso)) })}</Text>
                  )}
                </List.Item>
              ))}
            </List>
          )}
        </div>
      )}
      {changes.length > 0 && (
        <Alert color="blue" variant="light" title={t('cronInput.dstTitle')} role="note">
          <Stack gap={4}>
            {changes.map((c) => (
              <Text size="sm" key={c.after}>
                {t('cronInput.dstChange', { zone: value.timezone, from: `UTC${c.from}`, to: `UTC${c.to}`, before: inZone.format(new Date(c.before)), after: inZone.format(new Date(c.after)) })}
              </Text>
            ))}
            <Text size="sm">{t('cronInput.dstRule')}</Text>
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}
