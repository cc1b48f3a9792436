/**
 * The new password a user with a temporary one must choose before anything else (the app's gate
 * sends them here while GET /me says must_change_password); then on to where they were going.
 */
import { Group } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { keys } from '../../../api/keys';
import { useT } from '../../../i18n';
import { PasswordForm } from '../../profile/components/PasswordForm';
import { AuthCard } from '../components/AuthCard';
import { SignedInGate } from '../components/SignedInGate';
import { SignOutLink } from '../components/SignOutLink';
import { safeNext } from '../utils/next';

export function ChangePasswordPage() {
  const t = useT();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const next = safeNext(params.get('next'));
  return (
    <SignedInGate>
      {(me) => (me.must_change_password ? (
        <AuthCard title={t('auth.change.title')} intro={t('auth.change.intro', { name: me.name })}>
          <PasswordForm currentLabel={t('auth.change.current')} submitLabel={t('auth.change.submit')}
            onChanged={async () => {
              await client.refetchQueries({ queryKey: keys.me });
              await navigate(next, { replace: true });
            }} />
          <Group justify="flex-end"><SignOutLink /></Group>
        </AuthCard>
      ) : <Navigate to={next} replace />)}
    </SignedInGate>
  );
}
