/** Sign-in with email and password. */
import { useState, type FormEvent } from 'react';
import { Alert, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { Navigate, useSearchParams } from 'react-router';
import { api } from '../../../api/client';
import { SESSION_ENDED, useSetupStatus } from '../../../api/session';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { AuthCard } from '../components/AuthCard';
import { useSignedIn } from '../hooks';

export function SignInPage() {
  const t = useT();
  const [params] = useSearchParams();
  const setup = useSetupStatus();
  const signedIn = useSignedIn();
  const [form, setForm] = useState({ email: '', password: '' });
  const [ended] = useState(() => sessionStorage.getItem(SESSION_ENDED) === '1');
  const login = useMutation({
    mutationFn: () => api.call('login', { body: form }),
    onSuccess: async (result) => {
      sessionStorage.removeItem(SESSION_ENDED);
      if (result.status === 'signed_in') await signedIn();
    },
  });
  if (setup.data?.needs_setup) return <Navigate to="/setup" replace />;
  const submit = (e: FormEvent) => { e.preventDefault(); login.mutate(); };
  return (
    <AuthCard title={t('auth.signIn.title')}>
      {ended && <Alert color="blue" role="status">{t('auth.signIn.expired')}</Alert>}
      {params.get('signed_out') && <Alert color="green" role="status">{t('auth.signOut.done')}</Alert>}
      <form onSubmit={submit} noValidate>
        <Stack>
          {login.isError && <ProblemAlert error={login.error} />}
          <TextInput label={t('auth.email')} type="email" required autoComplete="username" value={form.email}
            onChange={(e) => setForm({ ...form, email: e.currentTarget.value })} />
          <PasswordInput label={t('auth.password')} required autoComplete="current-password" value={form.password}
            onChange={(e) => setForm({ ...form, password: e.currentTarget.value })} />
          <Button type="submit" loading={login.isPending}>{t('auth.signIn.submit')}</Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
