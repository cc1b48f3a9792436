/** The first step: email and password; answers signed in, or a ticket for the second step. */
import { useState, type FormEvent } from 'react';
import { Anchor, Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { useLogin, useSignedIn } from '../hooks';

export interface SecondStep { ticket: string; methods: Array<'totp' | 'recovery_code' | 'passkey'>; email: string }

export function PasswordStep({ onSecondFactor, initialEmail = '' }: { onSecondFactor: (step: SecondStep) => void; initialEmail?: string }) {
  const t = useT();
  const signedIn = useSignedIn();
  const login = useLogin();
  const [form, setForm] = useState({ email: initialEmail, password: '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate(form, {
      onSuccess: async (result) => {
        if (result.status === 'signed_in') await signedIn(result);
        else onSecondFactor({ ticket: result.ticket, methods: result.methods, email: form.email });
      },
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        {login.isError && <ProblemAlert error={login.error} />}
        <TextInput label={t('auth.email')} type="email" required autoComplete="username" value={form.email}
          onChange={(e) => setForm({ ...form, email: e.currentTarget.value })} />
        <PasswordInput label={t('auth.password')} required autoComplete="current-password" value={form.password}
          onChange={(e) => setForm({ ...form, password: e.currentTarget.value })} />
        <Group justify="flex-end" mt={-8}>
          <Anchor component={Link} to="/forgot-password" state={{ email: form.email }} size="sm">{t('auth.forgot.link')}</Anchor>
        </Group>
        <Button type="submit" loading={login.isPending}>{t('auth.signIn.submit')}</Button>
      </Stack>
    </form>
  );
}
