/**
 * Adding a member: name, email and role; the server makes the temporary password and answers it
 * once, shown here with a Copy button until the dialog closes.
 */
import { useState, type FormEvent } from 'react';
import { Button, Group, Modal, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { ProblemAlert, fieldErrors } from '../../../components/ProblemAlert';
import { ShownOnce } from '../../../components/ShownOnce';
import { useT } from '../../../i18n';
import { ROLES, useCreateUser, type Role } from '../hooks';

const EMPTY = { name: '', email: '', role: 'viewer' as Role };

export function AddUserDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const t = useT();
  const [form, setForm] = useState(EMPTY);
  const create = useCreateUser();
  const close = () => { onClose(); create.reset(); setForm(EMPTY); };
  const submit = (e: FormEvent) => { e.preventDefault(); create.mutate(form); };
  const errors = fieldErrors(create.error);
  const created = create.data;
  return (
    <Modal opened={opened} onClose={close} closeButtonProps={{ 'aria-label': t('app.close') }} title={created ? t('users.added.title', { name: created.user.name }) : t('users.add.title')} size="lg">
      {created ? (
        <Stack>
          <Text size="sm">{t('users.added.intro', { name: created.user.name })}</Text>
          {created.temporary_password && <ShownOnce label={t('users.temporaryPassword')} value={created.temporary_password} />}
          <Group justify="flex-end">
            <Button variant="default" component={Link} to={`/users/${created.user.id}`} onClick={close}>{t('users.open', { name: created.user.name })}</Button>
            <Button onClick={close}>{t('users.done')}</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <Text size="sm" c="dimmed">{t('users.add.intro')}</Text>
            {create.isError && <ProblemAlert error={create.error} />}
            <TextInput label={t('users.name')} required value={form.name} error={errors.name} data-autofocus
              onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} />
            <TextInput label={t('users.email')} type="email" required value={form.email} error={errors.email} autoComplete="off"
              onChange={(e) => setForm({ ...form, email: e.currentTarget.value })} />
            <NativeSelect label={t('users.role')} value={form.role} error={errors.role}
              data={ROLES.map((r) => ({ value: r, label: t(`app.role.${r}`) }))}
              onChange={(e) => setForm({ ...form, role: e.currentTarget.value as Role })} />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>{t('app.cancel')}</Button>
              <Button type="submit" loading={create.isPending}>{t('users.add.submit')}</Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
