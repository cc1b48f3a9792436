/**
 * What an admin does about a member's access, each after a confirmation: disable or enable the
 * account, reset the password (the temporary one shown once), turn off the second factor.
 */
import { useState } from 'react';
import { Alert, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ShownOnce } from '../../../components/ShownOnce';
import { useT } from '../../../i18n';
import { useDisableUserTwoFactor, useResetUserPassword, useUpdateUser, type User } from '../hooks';
import { ChangedMeanwhile, isVersionConflict } from './AccountForm';

type Asking = 'enabled' | 'reset' | 'twoFactor' | null;

export function AccessActions({ user, onReload }: { user: User; onReload: () => void }) {
  const t = useT();
  const [asking, setAsking] = useState<Asking>(null);
  // Fixed when the confirmation opens, so its words stay the same while it closes over the changed member.
  const [enable, setEnable] = useState(false);
  const update = useUpdateUser(user.id);
  const reset = useResetUserPassword(user.id);
  const twoFactor = useDisableUserTwoFactor(user.id);
  const name = user.name;
  const enabled = user.enabled !== false;
  const close = () => { setAsking(null); update.reset(); };
  const conflict = isVersionConflict(update.error);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="access-heading">
      <Stack>
        <Title order={2} size="h4" id="access-heading">{t('users.access')}</Title>
        {!enabled && <Alert color="red" variant="light"><Text size="sm">{t('users.disabledNote')}</Text></Alert>}
        {reset.data && (
          <Stack gap="xs" role="status">
            <Text size="sm">{t('users.reset.done', { name })}</Text>
            <ShownOnce label={t('users.temporaryPassword')} value={reset.data.temporary_password} />
          </Stack>
        )}
        {twoFactor.isSuccess && <Alert color="green" variant="light" role="status"><Text size="sm">{t('users.twoFactor.done', { name })}</Text></Alert>}
        <Text size="sm" c="dimmed">{t('users.twoFactor.hint', { state: user.two_factor_enabled ? t('users.on') : t('users.off') })}</Text>
        <Group gap="sm">
          <Button variant="default" onClick={() => { reset.reset(); setAsking('reset'); }}>{t('users.reset')}</Button>
          <Button variant="default" onClick={() => { twoFactor.reset(); setAsking('twoFactor'); }}>{t('users.twoFactor.off')}</Button>
          <Button variant={enabled ? 'outline' : 'filled'} color={enabled ? 'red.9' : undefined} onClick={() => { setEnable(!enabled); setAsking('enabled'); }}>
            {enabled ? t('users.disable') : t('users.enable')}
          </Button>
        </Group>
      </Stack>

      <ConfirmDialog opened={asking === 'enabled'} title={t(enable ? 'users.enable.title' : 'users.disable.title', { name })}
        confirmLabel={enable ? t('users.enable') : t('users.disable')} danger={!enable}
        loading={update.isPending} error={conflict ? undefined : update.error}
        onClose={close} onConfirm={() => update.mutate({ enabled: enable, version: user.version! }, { onSuccess: close })}>
        {conflict ? <ChangedMeanwhile onReload={() => { close(); onReload(); }} /> : t(enable ? 'users.enable.body' : 'users.disable.body', { name })}
      </ConfirmDialog>
      <ConfirmDialog opened={asking === 'reset'} title={t('users.reset.title', { name })} confirmLabel={t('users.reset')}
        loading={reset.isPending} error={reset.error} onClose={() => setAsking(null)}
        onConfirm={() => reset.mutate(undefined, { onSuccess: () => setAsking(null) })}>
        {t('users.reset.body')}
      </ConfirmDialog>
      <ConfirmDialog opened={asking === 'twoFactor'} title={t('users.twoFactor.title', { name })} confirmLabel={t('users.twoFactor.off')}
        loading={twoFactor.isPending} error={twoFactor.error} onClose={() => setAsking(null)}
        onConfirm={() => twoFactor.mutate(undefined, { onSuccess: () => setAsking(null) })}>
        {t('users.twoFactor.body')}
      </ConfirmDialog>
    </Paper>
  );
}
