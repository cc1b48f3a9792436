/**
 * Delete with a confirmation. A query that reports use answers 409 query.in_use with those reports
 * as dependents: they are listed, with links, so the person can change them first.
 */
import { Anchor, Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { Link, useNavigate } from 'react-router';
import { HeraldError, problemCode } from '../../../api/client';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useDeleteQuery, type Query } from '../hooks';

export function DeleteQueryButton({ query }: { query: Query }) {
  const t = useT();
  const navigate = useNavigate();
  const [opened, { open, close }] = useDisclosure(false);
  const remove = useDeleteQuery(query.id);
  const dependents = remove.error instanceof HeraldError ? remove.error.problem?.dependents ?? [] : [];
  const done = () => { close(); remove.reset(); };
  return (
    <>
      <Button variant="default" onClick={open}>{t('app.delete')}</Button>
      <Modal opened={opened} onClose={done} title={t('queries.deleteTitle')} centered closeButtonProps={{ 'aria-label': t('app.close') }}>
        <Stack>
          <Text size="sm">{t('queries.deleteBody', { name: query.name })}</Text>
          {problemCode(remove.error) === 'query.in_use' ? (
            <div role="alert">
              <Text size="sm" fw={500}>{t('queries.inUse')}</Text>
              <List size="sm">
                {dependents.map((d) => (
                  <List.Item key={d.id ?? d.name}>
                    {d.type === 'report' && d.id ? <Anchor component={Link} to={`/reports/${d.id}`}>{d.name}</Anchor> : d.name}
                  </List.Item>
                ))}
              </List>
            </div>
          ) : remove.isError && <ProblemAlert error={remove.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={done}>{t('app.cancel')}</Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate(undefined, {
              onSuccess: () => {
                notifications.show({ color: 'green', message: t('queries.deleted', { name: query.name }) });
                void navigate('/queries', { replace: true });
              },
            })}>{t('queries.deleteConfirm')}</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
