/**
 * "Forgot password?": asks for a link by email. The answer is the same whether or not the address
 * is an account's; the link opens the standalone /reset-password page the server serves.
 */
import { useState, type FormEvent } from 'react';
import { Alert, Anchor, Button, Stack, TextInput } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { AuthCard } from '../components/AuthCard';
import { useRequestPasswordReset } from '../hooks';

export function ForgotPasswordPage() {
  const t = useT();
  const location = useLocation();
  const given = (location.state as { email?: string } | null)?.email ?? '';
  const [email, setEmail] = useState(given);
  const reset = useRequestPasswordReset();
  const submit = (e: FormEvent) => { e.preventDefault(); reset.mutate(email); };
  return (
    <AuthCard title={t('auth.forgot.title')} intro={t('auth.forgot.intro')}>
      {reset.isSuccess ? (
        <Alert color="green" role="status" title={t('auth.forgot.sentTitle')}>{t('auth.forgot.sent', { email })}</Alert>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            {reset.isError && <ProblemAlert error={reset.error} />}
            <TextInput label={t('auth.email')} type="email" required autoComplete="username" value={email}
              onChange={(e) => setEmail(e.currentTarget.value)} />
            <Button type="submit" loading={reset.isPending}>{t('auth.forgot.submit')}</Button>
          </Stack>
        </form>
      )}
      <Anchor component={Link} to="/sign-in" size="sm">{t('auth.forgot.back')}</Anchor>
    </AuthCard>
  );
}
