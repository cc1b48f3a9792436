/** The health banner: nothing to say when all is well, else each problem with its severity and since when. */
import { Alert, List, Text } from '@mantine/core';
import type { Schemas } from '@herald/sdk';
import { Time } from '../../../components/Time';
import { useT } from '../../../i18n';

export function HealthBanner({ banner }: { banner: Schemas['Dashboard']['banner'] }) {
  const t = useT();
  if (banner.level === 'ok') {
    return <Alert color="green" variant="light" title={t('dashboard.banner.ok')} role="status" />;
  }
  return (
    <Alert color={banner.level === 'critical' ? 'red' : 'yellow'} variant="light" role="alert"
      title={t(banner.level === 'critical' ? 'dashboard.banner.critical' : 'dashboard.banner.warning')}>
      <List size="sm" spacing={4}>
        {banner.items.map((p, i) => (
          <List.Item key={`${p.code}-${i}`}>
            <Text span size="sm" fw={600}>{t(`dashboard.severity.${p.severity}`)}:</Text>{' '}
            <Text span size="sm">{p.message}</Text>
            {p.since && <Text span size="sm" c="dimmed"> · {t('dashboard.since')} <Time value={p.since} /></Text>}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
