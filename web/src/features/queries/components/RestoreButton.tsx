/** Restore a version: after a confirmation, a copy of it becomes the current version (409: changed meanwhile). */
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { problemCode } from '../../../api/client';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useRestoreVersion, useSavedQuery, type Query } from '../hooks';
import { ChangedMeanwhile } from './ChangedMeanwhile';

export function RestoreButton({ query, number, onRestored }: { query: Query; number: number; onRestored: () => void }) {
  const t = useT();
  const [opened, { open, close }] = useDisclosure(false);
  const restore = useRestoreVersion(query.id);
  const { refetch } = useSavedQuery(query.id);
  const done = () => { close(); restore.reset(); };
  return (
    <>
      <Button size="compact-sm" variant="light" onClick={open} aria-label={t('queries.restoreN', { number })}>{t('queries.restore')}</Button>
      <Modal opened={opened} onClose={done} title={t('queries.restoreTitle', { number })} centered closeButtonProps={{ 'aria-label': t('app.close') }}>
        <Stack>
          <Text size="sm">{t('queries.restoreBody', { number, next: query.current_version + 1 })}</Text>
          {problemCode(restore.error) === 'conflict.version'
            ? <ChangedMeanwhile onReload={() => { void refetch(); restore.reset(); }} />
            : restore.isError && <ProblemAlert error={restore.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={done}>{t('app.cancel')}</Button>
            <Button loading={restore.isPending} onClick={() => restore.mutate({ number, version: query.version }, {
              onSuccess: (q) => {
                notifications.show({ color: 'green', message: t('queries.restored', { number, current: q.current_version }) });
                done();
                onRestored();
              },
            })}>{t('queries.restoreConfirm')}</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
