/**
 * A member's name and role, starting from the query's data and sending `version` back: a 409
 * says someone changed the member meanwhile, with Reload.
 */
import { useState, type FormEvent } from 'react';
import { Alert, Button, Group, NativeSelect, Paper, Stack, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { HeraldError } from '../../../api/client';
import { ProblemAlert, fieldErrors } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { ROLES, useUpdateUser, type Role, type User } from '../hooks';

export function isVersionConflict(error: unknown): boolean {
  return error instanceof HeraldError && error.code === 'conflict.version';
}

export function ChangedMeanwhile({ onReload }: { onReload: () => void }) {
  const t = useT();
  return (
    <Alert color="orange" role="alert" title={t('app.changedMeanwhile')}>
      <Button size="xs" variant="light" onClick={onReload}>{t('app.reload')}</Button>
    </Alert>
  );
}

export function AccountForm({ user, onReload }: { user: User; onReload: () => void }) {
  const t = useT();
  const [form, setForm] = useState({ name: user.name, role: user.role });
  const update = useUpdateUser(user.id);
  const changes = {
    ...(form.name !== user.name ? { name: form.name } : {}),
    ...(form.role !== user.role ? { role: form.role } : {}),
  };
  const dirty = Object.keys(changes).length > 0;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (dirty) update.mutate({ ...changes, version: user.version! }, { onSuccess: () => notifications.show({ color: 'teal', message: t('users.saved') }) });
  };
  const errors = fieldErrors(update.error);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="account-heading">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={2} size="h4" id="account-heading">{t('users.account')}</Title>
          {update.isError && (isVersionConflict(update.error)
            ? <ChangedMeanwhile onReload={() => { update.reset(); onReload(); }} />
            : <ProblemAlert error={update.error} />)}
          <TextInput label={t('users.email')} value={user.email ?? ''} readOnly variant="filled" />
          <TextInput label={t('users.name')} required value={form.name} error={errors.name}
            onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} />
          <NativeSelect label={t('users.role')} value={form.role} error={errors.role}
            data={ROLES.map((r) => ({ value: r, label: t(`app.role.${r}`) }))}
            onChange={(e) => setForm({ ...form, role: e.currentTarget.value as Role })} />
          <Group justify="flex-end" gap="sm">
            <Button type="submit" disabled={!dirty} loading={update.isPending}>{t('app.save')}</Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
