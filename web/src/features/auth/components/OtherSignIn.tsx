/**
 * The sign-in methods without a password: a passkey the browser holds, and single sign-on when the
 * workspace has it on (GET /auth/methods), with the label its admin chose; when password sign-in is
 * for admins only, the page says so.
 */
import { Button, Divider, Stack, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { problemCode } from '../../../api/client';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { useT } from '../../../i18n';
import { usePasskeySignIn, useSignedIn, useSignInMethods, useSsoSignIn } from '../hooks';
import { describePasskeyError, passkeysSupported } from '../utils/webauthn';

export function OtherSignIn() {
  const t = useT();
  const [params] = useSearchParams();
  const signedIn = useSignedIn();
  const passkey = usePasskeySignIn();
  const sso = useSsoSignIn();
  const methods = useSignInMethods().data;
  const single = methods?.single_sign_on;
  // The server's default label reads in the user's language; an admin's own label as written.
  const ssoLabel = !single || single.button_label === 'Sign in with single sign-on' ? t('auth.signIn.sso') : single.button_label;
  const error = problemCode(passkey.error) === 'auth.invalid_credentials' ? new Error(t('auth.passkey.refused')) : (passkey.error ?? sso.error);
  return (
    <Stack gap="sm">
      <Divider label={t('auth.signIn.or')} labelPosition="center" />
      {error && <ProblemAlert error={describePasskeyError(error, t)} />}
      {passkeysSupported() && (
        <Button variant="default" loading={passkey.isPending}
          onClick={() => { sso.reset(); passkey.mutate(undefined, { onSuccess: (result) => signedIn(result) }); }}>
          {t('auth.signIn.passkey')}
        </Button>
      )}
      {single?.enabled && (
        <Button variant="default" loading={sso.isPending} onClick={() => { passkey.reset(); sso.mutate(params.get('next')); }}>
          {ssoLabel}
        </Button>
      )}
      {methods?.password_sign_in === 'admins_only' && <Text size="sm" c="dimmed">{t('auth.signIn.passwordAdminsOnly')}</Text>}
    </Stack>
  );
}
