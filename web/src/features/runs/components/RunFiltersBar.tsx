/** The runs list's filters (status, report, trigger), kept in the query string. */
import { Button, Group, Select } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { useT } from '../../../i18n';
import { useReportTitles } from '../hooks';
import { RUN_STATUSES, RUN_TRIGGERS, filtersFromSearch, withFilter, type RunFilters } from '../utils/filters';

export function RunFiltersBar() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const filters = filtersFromSearch(params);
  const titles = useReportTitles();
  const set = (name: keyof RunFilters) => (value: string | null) => setParams(withFilter(params, name, value ?? undefined), { replace: true });
  const reports = [...(titles.data ?? new Map<string, string>()).entries()]
    .map(([value, label]) => ({ value, label }));
  const any = Object.keys(filters).length > 0;
  return (
    <Group align="end" gap="sm" mb="md" wrap="wrap">
      <Select label={t('runs.filter.status')} placeholder={t('runs.filter.any')} clearable w={180}
        data={RUN_STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))}
        value={filters.status ?? null} onChange={set('status')} />
      <Select label={t('runs.filter.report')} placeholder={t('runs.filter.any')} clearable searchable w={260}
        nothingFoundMessage={t('runs.filter.noReport')} data={reports}
        value={filters.report_id ?? null} onChange={set('report_id')} />
      <Select label={t('runs.filter.trigger')} placeholder={t('runs.filter.any')} clearable w={180}
        data={RUN_TRIGGERS.map((s) => ({ value: s, label: t(`runs.trigger.${s}`) }))}
        value={filters.trigger ?? null} onChange={set('trigger')} />
      {any && <Button variant="subtle" onClick={() => setParams(new URLSearchParams(), { replace: true })}>{t('runs.filter.clear')}</Button>}
    </Group>
  );
}
