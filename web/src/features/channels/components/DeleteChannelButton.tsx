/**
 * Delete with a confirmation. A channel that deliveries (or the alert settings) use answers 409
 * channel.in_use with those as dependents: they are listed, reports with links, so the person
 * can change them first.
 */
import { Anchor, Button, List, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { Link, useNavigate } from 'react-router';
import { HeraldError, problemCode } from '../../../api/client';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { useT } from '../../../i18n';
import { useDeleteChannel, type Channel } from '../hooks';

/** Where a dependent is changed: a report's page, or the alert settings (type settings, no id). */
const linkOf = (d: { type: string; id?: string | undefined }): string | undefined => {
  if (d.type === 'report' && d.id) return `/reports/${d.id}`;
  if (d.type === 'settings') return '/settings';
  return undefined;
};

export function DeleteChannelButton({ channel }: { channel: Channel }) {
  const t = useT();
  const navigate = useNavigate();
  const [opened, { open, close }] = useDisclosure(false);
  const remove = useDeleteChannel(channel.id);
  const inUse = problemCode(remove.error) === 'channel.in_use';
  const dependents = remove.error instanceof HeraldError ? remove.error.problem?.dependents ?? [] : [];
  const done = () => { close(); remove.reset(); };
  return (
    <>
      <Button variant="default" onClick={open}>{t('app.delete')}</Button>
      <ConfirmDialog opened={opened} onClose={done} title={t('channels.delete.title', { name: channel.name })} confirmLabel={t('channels.delete.confirm')}
        loading={remove.isPending} error={inUse ? undefined : remove.error}
        onConfirm={() => remove.mutate(undefined, {
          onSuccess: () => {
            notifications.show({ color: 'green', message: t('channels.deleted', { name: channel.name }), closeButtonProps: { 'aria-label': t('app.close') } });
            void navigate('/channels', { replace: true });
          },
        })}>
        <Stack gap="xs">
          <Text size="sm">{t('channels.delete.body', { name: channel.name })}</Text>
          {inUse && (
            <div role="alert">
              <Text size="sm" fw={500}>{t('channels.delete.inUse')}</Text>
              <List size="sm" aria-label={t('channels.delete.dependents')}>
                {dependents.map((d) => {
                  const to = linkOf(d);
                  const label = d.type === 'settings' ? t('channels.delete.alertSettings', { name: d.name }) : d.name;
                  return <List.Item key={`${d.type}-${d.id ?? d.name}`}>{to ? <Anchor component={Link} to={to}>{label}</Anchor> : label}</List.Item>;
                })}
              </List>
            </div>
          )}
        </Stack>
      </ConfirmDialog>
    </>
  );
}
