/** The setup wizard while no user exists: the first administrator, in this browser's time zone and language. */
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

/** This browser's time zone and language, as the profile stores them. */
function browserPreferences(): { timezone?: string; locale?: string } {
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const locale = navigator.language;
  return {
    ...(timezone ? { timezone } : {}),
    ...(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(locale) ? { locale } : {}),
  };
}

export function SetupPage() {
  const t = useT();
  const status = useSetupStatus();
  const client = useQueryClient();
  const signedIn = useSignedIn();
  const [form, setForm] = useState({ name: '', email: '', password: '' });
  const setup = useMutation({
    mutationFn: async () => {
      const made = await api.call('runSetup', { body: form });
      // The first admin reads times in this browser's zone and language from the start (a new
      // account is UTC and en until its user picks); a refusal here leaves the defaults.
      await api.call('updateMe', { body: { version: made.user.version, preferences: { ...made.user.preferences, ...browserPreferences() } } })
        .catch(() => undefined);
      return made;
    },
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
