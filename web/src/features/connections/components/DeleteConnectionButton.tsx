/**
 * Delete with a confirmation. A connection that queries use answers 409 connection.in_use with
 * those queries as dependents: they are listed, with links, so the person can change them first.
 */
import { Anchor, Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { Link, useNavigate } from 'react-router';
import { HeraldError, problemCode } from '../../../api/client';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useDeleteConnection, type Connection } from '../hooks';

export function DeleteConnectionButton({ connection }: { connection: Connection }) {
  const t = useT();
  const navigate = useNavigate();
  const [opened, { open, close }] = useDisclosure(false);
  const remove = useDeleteConnection(connection.id);
  const dependents = remove.error instanceof HeraldError ? remove.error.problem?.dependents ?? [] : [];
  const inUse = problemCode(remove.error) === 'connection.in_use';
  const done = () => { close(); remove.reset(); };
  return (
    <>
      <Button variant="default" color="red" onClick={open}>{t('connections.delete')}</Button>
      <Modal opened={opened} onClose={done} title={t('connections.deleteTitle', { name: connection.name })} centered
        closeButtonProps={{ 'aria-label': t('app.close') }}>
        <Stack>
          <Text size="sm">{t('connections.deleteText')}</Text>
          {inUse ? (
            <div role="alert">
              <Text size="sm" fw={500}>{t('connections.inUse')}</Text>
              <List size="sm" aria-label={t('connections.inUse')}>
                {dependents.map((d) => (
                  <List.Item key={d.id ?? d.name}>
                    {d.type === 'query' && d.id ? <Anchor component={Link} to={`/queries/${d.id}`}>{d.name}</Anchor> : d.name}
                  </List.Item>
                ))}
              </List>
            </div>
          ) : remove.isError && <ProblemAlert error={remove.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={done}>{t('app.cancel')}</Button>
            {!inUse && <Button color="red" loading={remove.isPending} onClick={() => remove.mutate(undefined, {
              onSuccess: () => {
                notifications.show({ color: 'green', message: t('connections.deleted', { name: connection.name }), closeButtonProps: { 'aria-label': t('app.close') } });
                void navigate('/connections', { replace: true });
              },
            })}>{t('connections.deleteConfirm')}</Button>}
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
