/** The trail's filters (type, member), read from and written to the address. */
import { Button, Group, NativeSelect } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { useT } from '../../../i18n';
import { useAllUsers } from '../../users/hooks';
import { EVENT_TYPES, EVENT_TYPE_GROUPS, parseFilters, withFilter } from '../utils/filters';

export function AuditFilters() {
  const t = useT();
  const [params, setParams] = useSearchParams();
  const filters = parseFilters(params);
  const users = useAllUsers();
  const set = (change: Parameters<typeof withFilter>[1]) => setParams(withFilter(params, change), { replace: true });
  const typeLabel = (type: string) => {
    const key = `audit.type.${type}`;
    const text = t(key);
    return text === key ? type : text;
  };
  const unknownType = filters.type && !EVENT_TYPES.includes(filters.type) ? [filters.type] : [];
  return (
    <Group align="flex-end" gap="md" wrap="wrap">
      <NativeSelect label={t('audit.filter.type')} value={filters.type ?? ''} miw={260}
        onChange={(e) => set({ type: e.currentTarget.value })}
        data={[
          { value: '', label: t('audit.filter.anyType') },
          ...unknownType.map((type) => ({ value: type, label: type })),
          ...Object.entries(EVENT_TYPE_GROUPS).map(([group, types]) => ({
            group: t(`audit.group.${group}`),
            items: types.map((type) => ({ value: type, label: typeLabel(type) })),
          })),
        ]} />
      <NativeSelect label={t('audit.filter.user')} description={t('audit.filter.note')} value={filters.user ?? ''} miw={220}
        onChange={(e) => set({ user: e.currentTarget.value })}
        data={[{ value: '', label: t('audit.filter.anyone') }, ...(users.data ?? []).map((u) => ({ value: u.id, label: u.name }))]} />
      {(filters.type || filters.user) && (
        <Button variant="subtle" onClick={() => set({ type: null, user: null })}>{t('audit.filter.clear')}</Button>
      )}
    </Group>
  );
}
