/** 409 conflict.version: someone changed the query after it was read; reload shows their version. */
import { Alert, Button, Group, Text } from '@mantine/core';
import { useT } from '../../../i18n';

export function ChangedMeanwhile({ onReload }: { onReload: () => void }) {
  const t = useT();
  return (
    <Alert variant="default" role="alert" title={t('queries.conflictTitle')}>
      <Group justify="space-between" wrap="wrap">
        <Text size="sm">{t('app.changedMeanwhile')} {t('queries.conflictLoses')}</Text>
        <Button size="xs" onClick={onReload}>{t('app.reload')}</Button>
      </Group>
    </Alert>
  );
}
