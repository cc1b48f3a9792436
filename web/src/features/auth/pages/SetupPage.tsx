/** The setup wizard while no user exists: the first administrator. */
import { useState, type FormEvent } from 'react';
import { Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate } from 'react-router';
import { api } from '../../../api/client';
import { keys } from '../../../api/keys';
import { useSetupStatus } from '../../../api/session';
import { ProblemAlert, fieldErrors } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { AuthCard } from '../components/AuthCard';
import { useSignedIn } from '../hooks';

export function SetupPage() {
  const t = useT();
  const status = useSetupStatus();
  const client = useQueryClient();
  const signedIn = useSignedIn();
  const [form, setForm] = useState({ name: '', email: '', password: '' });
  const setup = useMutation({
    mutationFn: () => api.call('runSetup', { body: form }),
    onSuccess: async () => {
      await signedIn();
      client.setQueryData(keys.setup, { needs_setup: false });
    },
  });
  if (status.data && !status.data.needs_setup && setup.isIdle) return <Navigate to="/sign-in" replace />;
  const errors = fieldErrors(setup.error);
  const submit = (e: FormEvent) => { e.preventDefault(); setup.mutate(); };
  return (
    <AuthCard title={t('auth.setup.title')} intro={t('auth.setup.intro')}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {setup.isError && <ProblemAlert error={setup.error} />}
          <TextInput label={t('auth.name')} required autoComplete="name" value={form.name} error={errors.name}
            onChange={(e) => setForm({ ...form, name: e.currentTarget.value })} />
          <TextInput label={t('auth.email')} type="email" required autoComplete="email" value={form.email} error={errors.email}
            onChange={(e) => setForm({ ...form, email: e.currentTarget.value })} />
          <PasswordInput label={t('auth.password')} description={t('auth.passwordHint')} required autoComplete="new-password"
            value={form.password} error={errors.password} onChange={(e) => setForm({ ...form, password: e.currentTarget.value })} />
          <Button type="submit" loading={setup.isPending}>{t('auth.setup.submit')}</Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
